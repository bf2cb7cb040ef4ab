// MlirLexer: on-demand tokenizer of MLIR text with byte offsets and line/column lookup.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shardx::io {

/// One token. `text` views the source (for strings: including the quotes).
struct Token {
    enum class Kind {
        Eof,
        Error,
        BareId,    ///< foo, stablehlo.add, tensor, x16xf32
        PercentId, ///< %0, %arg1 (text includes '%')
        AtId,      ///< @name or @"quoted" (text includes '@')
        HashId,    ///< #loc3, #sdy.sharding (text includes '#')
        BangId,    ///< !stablehlo.token
        CaretId,   ///< ^bb0
        String,    ///< "..."
        Integer,   ///< 12, 0x1F
        Float,     ///< 1.5, 2.0e-3
        LParen,
        RParen,
        LSquare,
        RSquare,
        LBrace,
        RBrace,
        Less,
        Greater,
        Comma,
        Colon,
        Equal,
        Arrow,
        Question,
        Star,
        Plus,
        Minus,
        Vbar,
        FileMetaBegin, ///< {-#
        FileMetaEnd,   ///< #-}
    };
    Kind kind = Kind::Eof;
    size_t begin = 0;
    size_t end = 0;
    std::string_view text;

    bool is(Kind k) const { return kind == k; }
    bool isKeyword(std::string_view kw) const { return kind == Kind::BareId && text == kw; }
};

/// Tokenizes on demand from any byte offset; never reads past the end.
class MlirLexer {
public:
    explicit MlirLexer(std::string_view src);

    /// Lexes the token starting at or after `pos` (whitespace and `//` comments skipped).
    Token lexAt(size_t pos) const;
    std::string_view source() const { return m_src; }

    /// 1-based line and column of byte offset `pos`.
    void lineCol(size_t pos, int& line, int& col) const;

    /// Decodes the body of a string token (escapes `\n`, `\t`, `\\`, `\"`, `\XX`).
    static std::string unescape(std::string_view quoted);

    static bool isIdChar(char c);

private:
    std::string_view m_src;
    std::vector<size_t> m_lineStarts;
    /// The line lineCol found last: a reader asks about offsets in order, mostly on that line or the
    /// next, so it looks there before searching (a lexer belongs to one reader, one thread).
    mutable size_t m_lastLine = 0;
};

/// Short printable description of a token for diagnostics ("']'", "end of file").
std::string describeToken(const Token& t);

} // namespace shardx::io
