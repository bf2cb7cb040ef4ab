// Expected<T>: a value or an Error (no std::expected in GCC 12).
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

#include "core/support/Diagnostic.h"

namespace shardx {

/// A recoverable failure: a message and, when known, where in the input.
struct Error {
    std::string message;
    SourcePos pos;

    std::string format() const
    {
        Diagnostic d{Severity::Error, pos, message, {}};
        return d.format();
    }
};

/// Either a T or an Error. Check with `ok()` / `operator bool` before `value()`.
template <typename T> class Expected {
public:
    Expected(T value) : m_v(std::in_place_index<0>, std::move(value)) {}
    Expected(Error error) : m_v(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value()
    {
        assert(ok());
        return std::get<0>(m_v);
    }
    const T& value() const
    {
        assert(ok());
        return std::get<0>(m_v);
    }
    T& operator*() { return value(); }
    const T& operator*() const { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    const Error& error() const
    {
        assert(!ok());
        return std::get<1>(m_v);
    }

private:
    std::variant<T, Error> m_v;
};

/// Expected<void>: success or an Error.
class Status {
public:
    Status() = default;
    Status(Error e) : m_error(std::move(e)), m_failed(true) {}
    static Status success() { return Status(); }

    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const Error& error() const
    {
        assert(m_failed);
        return m_error;
    }

private:
    Error m_error;
    bool m_failed = false;
};

} // namespace shardx
