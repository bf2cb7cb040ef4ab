// Tests of the generic IR: use lists, block edits, func attributes, attributes and types.
#include <QtTest>

#include <cmath>
#include <functional>
#include <thread>

#include "core/ir/Module.h"

using namespace shardx;
using namespace shardx::ir;

class TestIr : public QObject {
    Q_OBJECT

private slots:
    void useListsFollowOperandChanges()
    {
        Module m;
        Op* f = m.body().push_back(std::make_unique<Op>("func.func"));
        Block& body = f->addRegion()->front();
        Value* a = body.addArgument(Type::tensor({8}, "f32"));
        Value* b = body.addArgument(Type::tensor({8}, "f32"));
        auto add = std::make_unique<Op>("stablehlo.add");
        add->addOperand(a);
        add->addOperand(a);
        add->addResult(Type::tensor({8}, "f32"));
        Op* addOp = body.push_back(std::move(add));
        QCOMPARE(a->uses().size(), size_t(2));
        QVERIFY(b->useEmpty());

        addOp->setOperand(1, b);
        QCOMPARE(a->uses().size(), size_t(1));
        QVERIFY(b->hasOneUse());
        QCOMPARE(b->uses()[0].index, 1u);

        a->replaceAllUsesWith(b);
        QVERIFY(a->useEmpty());
        QCOMPARE(b->uses().size(), size_t(2));
        QCOMPARE(addOp->operand(0), b);

        addOp->eraseOperand(0);
        QCOMPARE(addOp->numOperands(), 1u);
        QCOMPARE(b->uses().size(), size_t(1));
        QCOMPARE(b->uses()[0].index, 0u);
    }

    void insertEraseAndOrder()
    {
        Module m;
        Block& blk = m.body();
        Op* first = blk.push_back(std::make_unique<Op>("test.a"));
        Op* last = blk.push_back(std::make_unique<Op>("test.c"));
        Op* mid = blk.insertAfter(first, std::make_unique<Op>("test.b"));
        Op* head = blk.insertBefore(first, std::make_unique<Op>("test.0"));
        QCOMPARE(head->nextInBlock(), first);
        QCOMPARE(first->nextInBlock(), mid);
        QCOMPARE(mid->nextInBlock(), last);
        QCOMPARE(last->nextInBlock(), nullptr);
        QCOMPARE(first->prevInBlock(), head);
        QVERIFY(head->isBeforeInBlock(last));
        QVERIFY(!last->isBeforeInBlock(head));

        // Erasing an op drops its operand uses.
        Value* v = first->addResult(Type::tensor({}, "i32"));
        mid->addOperand(v);
        QVERIFY(v->hasOneUse());
        mid->erase();
        QVERIFY(v->useEmpty());
        QCOMPARE(first->nextInBlock(), last);
        QCOMPARE(blk.ops().size(), size_t(3));
        QCOMPARE(std::string(first->dialect()), std::string("test"));
        QCOMPARE(first->parentOp(), &m.op());
    }

    void nestedWalkIsPreOrder()
    {
        Module m;
        Op* f = m.body().push_back(std::make_unique<Op>("func.func"));
        Block& body = f->addRegion()->front();
        Op* w = body.push_back(std::make_unique<Op>("stablehlo.while"));
        w->addRegion()->front().push_back(std::make_unique<Op>("stablehlo.return"));
        body.push_back(std::make_unique<Op>("func.return"));
        std::vector<std::string> names;
        m.op().walk([&](Op* op) { names.push_back(op->name()); });
        std::vector<std::string> expected = {"builtin.module", "func.func", "stablehlo.while", "stablehlo.return",
                                             "func.return"};
        QCOMPARE(names, expected);
        QVERIFY(f->isProperAncestorOf(w->region(0).front().terminator()));
    }

    void opNamesAreInterned()
    {
        // One spelling, one interned name: ops compare names as pointers.
        OperationName add("stablehlo.add");
        OperationName add2(std::string("stablehlo.") + "add");
        OperationName mul("stablehlo.multiply");
        QVERIFY(add == add2);
        QCOMPARE(&add.str(), &add2.str());
        QVERIFY(!(add == mul));
        QVERIFY(add == std::string_view("stablehlo.add"));
        QVERIFY(OperationName() == std::string_view(""));
        Op a("stablehlo.add");
        Op b(add);
        QCOMPARE(&a.name(), &b.name());
        QVERIFY(a.is(add) && !a.is(mul));
        QCOMPARE(a.dialect(), std::string("stablehlo"));
        a.setName("stablehlo.multiply");
        QVERIFY(a.opName() == mul);
        QCOMPARE(a.name(), std::string("stablehlo.multiply"));
    }

    void fileNamesAreShared()
    {
        // One path, one string: every position of a module points at it, whatever the path's length.
        const std::string path = "/home/someone/models/exported-from-jax/transformer.mlir";
        FileName a(path);
        FileName b(std::string_view(path).substr(0));
        QVERIFY(a == b);
        QCOMPARE(&a.str(), &b.str());
        QVERIFY(a == path && a == path.c_str() && a == std::string_view(path));
        QVERIFY(!(a == FileName("other.mlir")));
        QCOMPARE(a + ":3", path + ":3");
        // The empty name needs no table and equals an empty path.
        FileName none;
        QVERIFY(none.empty() && none == FileName("") && none == std::string());
        QCOMPARE(none.size(), size_t(0));
        const SourcePos pos{path, 3, 4};
        QCOMPARE(sizeof(pos), sizeof(void*) + 2 * sizeof(int));
        QCOMPARE(&pos.file.str(), &a.str());
        // Interned from several threads at once: one string per path.
        std::vector<const std::string*> seen(8);
        std::vector<std::thread> threads;
        for (size_t t = 0; t < seen.size(); ++t)
            threads.emplace_back([&seen, t] {
                for (int i = 0; i < 200; ++i)
                    seen[t] = &FileName("shared/" + std::to_string(i % 7) + ".mlir").str();
            });
        for (std::thread& t : threads)
            t.join();
        for (const std::string* p : seen)
            QCOMPARE(p, &FileName("shared/" + std::to_string(199 % 7) + ".mlir").str());
    }

    void attributesStaySmall()
    {
        // Large payloads are boxed: an attribute is as large as its largest inline kind (a location),
        // and the boxed kinds read back as themselves.
        QVERIFY(sizeof(Attribute) <= 112);
        QVERIFY(sizeof(LocationAttr) <= 96);
        TensorSharding s;
        s.mesh.symbol = "m";
        AttrPtr a = makeAttr(ShardingAttr{s});
        QVERIFY(a->is<ShardingAttr>() && !a->is<OpShardingRuleAttr>());
        QCOMPARE(a->as<ShardingAttr>()->sharding.mesh.symbol, std::string("m"));
        QVERIFY(!a->as<OpShardingRuleAttr>());
        Attribute copy = *a; // deep copy of the box
        QVERIFY(copy == *a);
        QVERIFY(copy.as<ShardingAttr>() != a->as<ShardingAttr>());
        TensorSharding other = s;
        other.mesh.symbol = "n";
        QVERIFY(!(*makeAttr(ShardingAttr{other}) == *a));
    }

    void irObjectsStaySmall()
    {
        // A program holds an Op per op, a Value per result and argument and a NamedAttribute per
        // attribute: what few ops have lives out of line, one pointer stands for both kinds of
        // value owner, attribute names are interned.
        QVERIFY(sizeof(NamedAttribute) <= 3 * sizeof(void*));
        QCOMPARE(sizeof(AttrName), sizeof(void*));
        QVERIFY(sizeof(Op) <= 168);
        QVERIFY(sizeof(Value) <= 88);

        Op op("stablehlo.custom_call");
        QCOMPARE(op.numRegions(), 0u);
        QVERIFY(op.regions().empty() && op.successors().empty() && !op.opaqueSyntax());
        op.setOpaqueSyntax(nullptr); // nothing to hold: stays without extras
        QVERIFY(!op.opaqueSyntax());
        Region* r = op.addRegion();
        QCOMPARE(op.numRegions(), 1u);
        QCOMPARE(&op.region(0), r);
        QCOMPARE(op.regions().front().get(), r);
        Block* b = r->addBlock();
        op.addSuccessor(b);
        QCOMPARE(op.successors(), std::vector<Block*>{b});
        op.setOpaqueSyntax(std::make_shared<const OpaqueSyntax>(OpaqueSyntax{{"my.op ", ""}}));
        QCOMPARE(op.opaqueSyntax()->pieces.size(), size_t(2));

        Value* arg = b->addArgument(Type::tensor({8}, "f32"));
        QVERIFY(arg->isBlockArgument());
        QCOMPARE(arg->ownerBlock(), b);
        QVERIFY(!arg->definingOp());
        Value* res = op.addResult(Type::tensor({8}, "f32"));
        QVERIFY(!res->isBlockArgument());
        QCOMPARE(res->definingOp(), &op);
        QVERIFY(!res->ownerBlock());
        // Only block arguments carry a location and a position (held apart).
        QVERIFY(!res->loc() && !res->pos().isKnown());
        arg->setPos(SourcePos{"t.mlir", 3, 4});
        QCOMPARE(arg->pos().line, 3);
        QVERIFY(!arg->loc());
        const Value detached(Type::tensor({8}, "f32"), static_cast<Block*>(nullptr), 0);
        QVERIFY(!detached.isBlockArgument() && !detached.definingOp() && !detached.ownerBlock());
    }

    void attributeNamesAreInterned()
    {
        const AttrName a("sdy.sharding");
        const AttrName b(std::string("sdy.") + "sharding");
        QVERIFY(a == b);
        QCOMPARE(&a.str(), &b.str());
        QVERIFY(a == "sdy.sharding" && a == std::string("sdy.sharding") && a == std::string_view("sdy.sharding"));
        QVERIFY(!(a == AttrName("sdy.shardings")));
        QVERIFY(AttrName("a") < AttrName("b") && AttrName("b") > AttrName("a"));
        QCOMPARE(a + "!", std::string("sdy.sharding!"));
        QCOMPARE(a.size(), size_t(12));
        QVERIFY(AttrName().empty() && AttrName() == AttrName(""));
        NamedAttrList list;
        setAttr(list, "b", makeAttr(UnitAttr{}));
        setAttr(list, std::string("a"), makeAttr(UnitAttr{}));
        QCOMPARE(&list[0].name.str(), &AttrName("a").str());
        QCOMPARE(std::string_view(list[1].name), std::string_view("b"));
    }

    void equalAttributesAreShared()
    {
        // The kinds ops hold alike are held once per content; equality is by content still.
        const AttrPtr dims = makeAttr(DenseArrayAttr{"i64", {0, 2, 1}, {}});
        QCOMPARE(makeAttr(DenseArrayAttr{"i64", {0, 2, 1}, {}}).get(), dims.get());
        QVERIFY(makeAttr(DenseArrayAttr{"i64", {0, 1, 2}, {}}).get() != dims.get());
        QVERIFY(makeAttr(DenseArrayAttr{"i32", {0, 2, 1}, {}}).get() != dims.get());
        const AttrPtr i = makeAttr(IntegerAttr{2, Type::scalar("i64")});
        QCOMPARE(makeAttr(IntegerAttr{2, Type::scalar("i64")}).get(), i.get());
        QVERIFY(makeAttr(IntegerAttr{2, Type::scalar("i32")}).get() != i.get());
        const AttrPtr dict = makeAttr(DictionaryAttr{{{"k", i}}});
        QCOMPARE(makeAttr(DictionaryAttr{{{"k", i}}}).get(), dict.get());
        QVERIFY(makeAttr(DictionaryAttr{{{"j", i}}}).get() != dict.get());
        // 0.0 and -0.0 are equal numbers but print apart: never one for the other.
        const AttrPtr zero = makeAttr(DenseArrayAttr{"f64", {}, {0.0}});
        const AttrPtr negativeZero = makeAttr(DenseArrayAttr{"f64", {}, {-0.0}});
        QVERIFY(zero.get() != negativeZero.get());
        QVERIFY(std::signbit(negativeZero->as<DenseArrayAttr>()->floats[0]));
        // Locations name one op each: made anew.
        LocationAttr loc;
        loc.kind = LocationAttr::Kind::Name;
        loc.text = "layer_0/add";
        QVERIFY(makeAttr(loc).get() != makeAttr(loc).get());
        // An attribute no one holds dies as before.
        std::weak_ptr<const Attribute> weak = makeAttr(StringAttr{"only here"});
        QVERIFY(weak.expired());
    }

    void walksWithAndWithoutStdFunctionAgree()
    {
        Module m;
        Op* f = m.body().push_back(std::make_unique<Op>("func.func"));
        Block& body = f->addRegion()->front();
        Op* w = body.push_back(std::make_unique<Op>("stablehlo.while"));
        w->addRegion()->front().push_back(std::make_unique<Op>("stablehlo.add"));
        w->region(0).front().push_back(std::make_unique<Op>("stablehlo.return"));
        body.push_back(std::make_unique<Op>("func.return"));

        std::vector<std::string> pre, preFn, post, postFn, skipped;
        m.op().walk([&](Op* op) { pre.push_back(op->name()); });
        const std::function<void(Op*)> fn = [&](Op* op) { preFn.push_back(op->name()); };
        m.op().walk(fn);
        QCOMPARE(pre, preFn);
        m.op().walkPostOrder([&](Op* op) { post.push_back(op->name()); });
        const std::function<void(Op*)> postFnFn = [&](Op* op) { postFn.push_back(op->name()); };
        m.op().walkPostOrder(postFnFn);
        QCOMPARE(post, postFn);
        const std::vector<std::string> expectedPost = {"stablehlo.add", "stablehlo.return", "stablehlo.while",
                                                       "func.return",   "func.func",        "builtin.module"};
        QCOMPARE(post, expectedPost);
        // Returning false skips the op's regions.
        m.op().walkPreOrder([&](Op* op) {
            skipped.push_back(op->name());
            return op != w;
        });
        const std::vector<std::string> expectedSkip = {"builtin.module", "func.func", "stablehlo.while", "func.return"};
        QCOMPARE(skipped, expectedSkip);
        // The post-order walk takes each block's list first: the visited op may erase itself.
        m.op().walkPostOrder([&](Op* op) {
            if (op->name() == "stablehlo.add")
                op->erase();
        });
        QCOMPARE(w->region(0).front().ops().size(), size_t(1));
    }

    void findAttrInLongAndShortLists()
    {
        // Short lists are scanned, long ones searched: both find every entry and nothing else.
        for (int n : {3, 8, 9, 40}) {
            NamedAttrList list;
            for (int i = 0; i < n; ++i)
                setAttr(list, "attr_" + std::to_string(i), makeAttr(IntegerAttr{i, Type::scalar("i64")}));
            for (int i = 0; i < n; ++i) {
                const Attribute* a = findAttr(list, "attr_" + std::to_string(i));
                QVERIFY(a);
                QCOMPARE(a->as<IntegerAttr>()->value, int64_t(i));
            }
            QVERIFY(!findAttr(list, "attr_"));
            QVERIFY(!findAttr(list, "attr_" + std::to_string(n)));
            QVERIFY(!findAttr(list, "attr_00"));
        }
    }

    void moduleTearsDownWithUsesAcrossRegions()
    {
        // A value used inside nested regions and by ops after them; the module frees it all at once
        // (under the sanitizers this proves nothing reads a freed use list).
        auto m = std::make_unique<Module>();
        Op* f = m->body().push_back(std::make_unique<Op>("func.func"));
        Block& body = f->addRegion()->front();
        Value* a = body.addArgument(Type::tensor({8}, "f32"));
        Value* last = a;
        for (int i = 0; i < 100; ++i) {
            auto w = std::make_unique<Op>("stablehlo.while");
            w->addOperand(last);
            Block& inner = w->addRegion()->front();
            auto add = std::make_unique<Op>("stablehlo.add");
            add->addOperand(a);
            add->addOperand(last);
            add->addResult(Type::tensor({8}, "f32"));
            inner.push_back(std::move(add));
            last = w->addResult(Type::tensor({8}, "f32"));
            body.push_back(std::move(w));
        }
        auto ret = std::make_unique<Op>("func.return");
        ret->addOperand(last);
        body.push_back(std::move(ret));
        QCOMPARE(a->uses().size(), size_t(102)); // the first loop and its add use it twice
        m.reset();
        QVERIFY(!m);
    }

    void funcArgumentAttributes()
    {
        Module m;
        Op* f = m.body().push_back(std::make_unique<Op>("func.func"));
        f->setProp("sym_name", makeAttr(StringAttr{"main"}));
        f->setProp("function_type",
                   makeAttr(TypeAttr{Type::function({Type::tensor({8}, "f32"), Type::tensor({4}, "f32")},
                                                    {Type::tensor({8}, "f32")})}));
        QCOMPARE(m.findFunc("main"), f);
        QVERIFY(funcArgAttrs(*f, 1).empty());

        TensorSharding s;
        s.mesh.symbol = "mesh";
        s.dims = {DimSharding{{AxisRef("x")}, true, std::nullopt}};
        setFuncArgAttr(*f, 1, "sdy.sharding", makeAttr(ShardingAttr{s}));
        QVERIFY(f->attr("arg_attrs"));
        QCOMPARE(f->attr("arg_attrs")->as<ArrayAttr>()->elements.size(), size_t(2));
        QVERIFY(funcArgAttrs(*f, 0).empty());
        NamedAttrList attrs = funcArgAttrs(*f, 1);
        QCOMPARE(attrs.size(), size_t(1));
        QCOMPARE(attrs[0].value->as<ShardingAttr>()->sharding.toAttrString(),
                 std::string("#sdy.sharding<@mesh, [{\"x\"}]>"));

        // Removing the last attribute removes the whole arg_attrs array, as MLIR omits it.
        removeFuncArgAttr(*f, 1, "sdy.sharding");
        QVERIFY(!f->attr("arg_attrs"));

        setFuncResultAttr(*f, 0, "jax.result_info", makeAttr(StringAttr{"out"}));
        QCOMPARE(funcResultAttrs(*f, 0).size(), size_t(1));
    }

    void everyArgumentLosesAnAttributeAtOnce()
    {
        // removeEveryFuncArgAttr (dropShardingAndMesh's one rewrite of arg_attrs) leaves what a
        // removeFuncArgAttr per argument leaves: other entries kept, the array gone once empty.
        auto makeFunc = [](Module& m) {
            Op* f = m.body().push_back(std::make_unique<Op>("func.func"));
            f->setProp("function_type",
                       makeAttr(TypeAttr{Type::function(
                           {Type::tensor({8}, "f32"), Type::tensor({4}, "f32"), Type::tensor({2}, "f32")},
                           {Type::tensor({8}, "f32")})}));
            TensorSharding s;
            s.mesh.symbol = "mesh";
            s.dims = {DimSharding{{AxisRef("x")}, true, std::nullopt}};
            setFuncArgAttr(*f, 0, "sdy.sharding", makeAttr(ShardingAttr{s}));
            setFuncArgAttr(*f, 2, "sdy.sharding", makeAttr(ShardingAttr{s}));
            setFuncArgAttr(*f, 2, "jax.buffer_donor", makeAttr(BoolAttr{true}));
            setFuncResultAttr(*f, 0, "sdy.sharding", makeAttr(ShardingAttr{s}));
            return f;
        };
        Module one, each;
        Op* a = makeFunc(one);
        Op* b = makeFunc(each);
        removeEveryFuncArgAttr(*a, "sdy.sharding");
        for (unsigned i = 0; i < 3; ++i)
            removeFuncArgAttr(*b, i, "sdy.sharding");
        QVERIFY(a->attr("arg_attrs"));
        QCOMPARE(a->attr("arg_attrs")->as<ArrayAttr>()->elements.size(), size_t(3));
        for (unsigned i = 0; i < 3; ++i) {
            QCOMPARE(funcArgAttrs(*a, i).size(), funcArgAttrs(*b, i).size());
            QVERIFY(!funcArgAttr(*a, i, "sdy.sharding"));
        }
        QVERIFY(funcArgAttr(*a, 2, "jax.buffer_donor"));
        removeEveryFuncArgAttr(*a, "jax.buffer_donor");
        QVERIFY(!a->attr("arg_attrs"));
        removeEveryFuncResultAttr(*a, "sdy.sharding");
        QVERIFY(!a->attr("res_attrs"));
        // A function without arguments keeps what it has (there is nothing to rewrite).
        Module none;
        Op* f = none.body().push_back(std::make_unique<Op>("func.func"));
        f->setProp("function_type", makeAttr(TypeAttr{Type::function({}, {})}));
        removeEveryFuncArgAttr(*f, "sdy.sharding");
        QVERIFY(!f->attr("arg_attrs"));
    }

    void attributeListsStaySorted()
    {
        NamedAttrList list;
        setAttr(list, "sdy.sharding", makeAttr(UnitAttr{}));
        setAttr(list, "a", makeAttr(BoolAttr{true}));
        setAttr(list, "sdy.propagation_edges", makeAttr(UnitAttr{}));
        QCOMPARE(list[0].name, std::string("a"));
        QCOMPARE(list[1].name, std::string("sdy.propagation_edges"));
        QCOMPARE(list[2].name, std::string("sdy.sharding"));
        setAttr(list, "a", makeAttr(BoolAttr{false}));
        QCOMPARE(list.size(), size_t(3));
        QVERIFY(!findAttr(list, "a")->as<BoolAttr>()->value);
        QVERIFY(removeAttr(list, "sdy.sharding"));
        QVERIFY(!removeAttr(list, "sdy.sharding"));
        QVERIFY(!findAttr(list, "zzz"));
    }

    void attributeEquality()
    {
        AttrPtr a = makeAttr(IntegerAttr{2, Type::scalar("i64")});
        AttrPtr b = makeAttr(IntegerAttr{2, Type::scalar("i64")});
        AttrPtr c = makeAttr(IntegerAttr{2, Type::scalar("i32")});
        QVERIFY(attrEquals(a, b));
        QVERIFY(!attrEquals(a, c));
        ArrayAttr arr1{{a, c}};
        ArrayAttr arr2{{b, c}};
        QVERIFY(attrEquals(makeAttr(arr1), makeAttr(arr2)));
        QVERIFY(!attrEquals(makeAttr(arr1), makeAttr(ArrayAttr{{a}})));
        QVERIFY(!attrEquals(a, nullptr));
        QVERIFY(attrEquals(nullptr, nullptr));
    }

    void typesSpellAndCompare()
    {
        QCOMPARE(Type::tensor({8, Type::kDynamic}, "f32").toString(), std::string("tensor<8x?xf32>"));
        QCOMPARE(Type::tensor({}, "i1").toString(), std::string("tensor<i1>"));
        QCOMPARE(Type::unrankedTensor("bf16").toString(), std::string("tensor<*xbf16>"));
        QCOMPARE(Type::tuple({Type::tensor({2}, "f32"), Type::token()}).toString(),
                 std::string("tuple<tensor<2xf32>, !stablehlo.token>"));
        QCOMPARE(Type::function({Type::tensor({2}, "f32")}, {Type::tensor({2}, "f32")}).toString(),
                 std::string("(tensor<2xf32>) -> tensor<2xf32>"));
        QCOMPARE(Type::function({}, {}).toString(), std::string("() -> ()"));
        QVERIFY(Type::tensor({0, 4}, "f32").hasStaticShape());
        QCOMPARE(Type::tensor({0, 4}, "f32").numElements(), int64_t(0));
        QCOMPARE(Type::tensor({Type::kDynamic}, "f32").numElements(), int64_t(-1));
        QVERIFY(Type::tensor({2}, "f32") != Type::tensor({2}, "f16"));
        QCOMPARE(elementBitWidth("bf16"), 16);
        QCOMPARE(elementBitWidth("ui64"), 64);
        QCOMPARE(elementBitWidth("complex<f32>"), 64);
        QCOMPARE(elementBitWidth("i1"), 1);
        QVERIFY(isUnsignedElementType("ui8"));
        QVERIFY(!isIntegerElementType("f32"));
    }

    void typesAreUniqued()
    {
        // Equal types share one storage: the shape is not copied per value, and == is one pointer compare.
        const Type a = Type::tensor({8, 16}, "f32");
        const Type b = Type::tensor(std::vector<int64_t>{8, 16}, std::string("f32"));
        QVERIFY(a == b);
        QCOMPARE(a.impl(), b.impl());
        QCOMPARE(&a.shape(), &b.shape());
        QVERIFY(a != Type::tensor({16, 8}, "f32"));
        QVERIFY(a != Type::unrankedTensor("f32"));
        QVERIFY(Type::unrankedTensor("f32") == Type::unrankedTensor("f32"));
        QVERIFY(Type::scalar("f32") != Type::opaque("f32")); // same spelling, another kind
        QVERIFY(Type::tuple({a, Type::token()}) == Type::tuple({b, Type::token()}));
        QVERIFY(Type::function({a}, {}) != Type::function({}, {a})); // inputs and results are kept apart
        QVERIFY(Type() == Type());
        QVERIFY(Type().isNone());
        QCOMPARE(Type().rank(), 0);
        QVERIFY(Type().elementType().empty());

        // withShape and setEncoding give the uniqued type of the result.
        QVERIFY(a.withShape({16, 8}) == Type::tensor({16, 8}, "f32"));
        QVERIFY(Type::unrankedTensor("i1").withShape({2}) == Type::tensor({2}, "i1"));
        Type enc1 = a, enc2 = a, enc3 = a;
        enc1.setEncoding(makeAttr(OpaqueAttr{"sparse", "", "x"}));
        enc2.setEncoding(makeAttr(OpaqueAttr{"sparse", "", "x"})); // another attribute, equal
        enc3.setEncoding(makeAttr(OpaqueAttr{"sparse", "", "y"}));
        QVERIFY(enc1 == enc2);
        QVERIFY(enc1 != enc3);
        QVERIFY(enc1 != a);
        QCOMPARE(enc1.shape(), a.shape());
        QVERIFY(enc1.encoding() && enc1.encoding()->as<OpaqueAttr>()->body == "x");
        enc1.setEncoding(nullptr);
        QVERIFY(enc1 == a);
        Type noneWithEncoding;
        noneWithEncoding.setEncoding(makeAttr(OpaqueAttr{"sparse", "", "x"}));
        QVERIFY(noneWithEncoding != Type());
        QVERIFY(noneWithEncoding.isNone());

        // The derived facts are computed once, with the type.
        QVERIFY(Type::tensor({int64_t(1) << 40, int64_t(1) << 40}, "f32").hasElementCountOverflow());
        QCOMPARE(Type::tensor({int64_t(1) << 40, int64_t(1) << 40}, "f32").numElements(), INT64_MAX);
        QVERIFY(!Type::tensor({Type::kDynamic, 4}, "f32").hasStaticShape());
        QVERIFY(!Type::tensor({Type::kDynamic, 4}, "f32").hasElementCountOverflow());
        QCOMPARE(Type::tensor({3, 4}, "f32").numElements(), int64_t(12));
        QVERIFY(!Type::unrankedTensor("f32").hasStaticShape());
        QCOMPARE(Type::unrankedTensor("f32").numElements(), int64_t(-1));
    }

    void typesAreUniquedAcrossThreads()
    {
        // Several threads making the same new types get the same storages (the table takes a lock).
        std::vector<std::vector<Type>> made(4);
        std::vector<std::thread> threads;
        for (size_t t = 0; t < made.size(); ++t)
            threads.emplace_back([&made, t] {
                for (int64_t i = 0; i < 2000; ++i)
                    made[t].push_back(Type::tensor({i, 7777}, "f32"));
            });
        for (std::thread& th : threads)
            th.join();
        for (size_t t = 1; t < made.size(); ++t)
            for (size_t i = 0; i < made[t].size(); ++i)
                QCOMPARE(made[t][i].impl(), made[0][i].impl());
        QCOMPARE(made[3][1999].shape(), (std::vector<int64_t>{1999, 7777}));
    }

    void meshConstructionDropsIotaIds()
    {
        Mesh iota({{"a", 2}, {"b", 2}}, {0, 1, 2, 3});
        QVERIFY(iota.deviceIds().empty());
        QCOMPARE(iota.toString(), std::string("<[\"a\"=2, \"b\"=2]>"));
        Mesh perm({{"a", 2}, {"b", 2}}, {3, 1, 2, 0});
        QCOMPARE(perm.deviceIdAt(1), int64_t(1));
        QCOMPARE(perm.deviceIdAt(3), int64_t(0));
        QCOMPARE(perm.toString(), std::string("<[\"a\"=2, \"b\"=2], device_ids=[3, 1, 2, 0]>"));
        Mesh maximal({}, {0});
        QVERIFY(maximal.isMaximal());
        QCOMPARE(maximal.toString(), std::string("<[], device_ids=[0]>"));
        QVERIFY(Mesh().isEmpty());
        QCOMPARE(Mesh({{"x", 1}}, {0}).toString(), std::string("<[\"x\"=1]>"));
    }
};

QTEST_APPLESS_MAIN(TestIr)
#include "tst_ir.moc"
