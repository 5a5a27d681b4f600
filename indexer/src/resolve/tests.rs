//! Resolution rules, one small multi-file fixture each, with the expected answer beside it.
//! `//- path` starts a file; `$0` marks the cursor.

use expect_test::{Expect, expect};

use super::*;
use crate::snapshot::{FileEntry, Snapshot};

fn snapshot(fixture: &str) -> (Snapshot, String, Pos) {
    let mut cursor = None;
    let mut entries = Vec::new();
    for chunk in fixture.split("//- ").filter(|c| !c.trim().is_empty()) {
        let (path, body) = chunk.split_once('\n').expect("a path line");
        let path = path.trim().to_string();
        let mut text = body.to_string();
        if let Some(at) = text.find("$0") {
            let before = &text[..at];
            let line = before.matches('\n').count() as u32 + 1;
            let column = (at - before.rfind('\n').map_or(0, |i| i + 1)) as u32 + 1;
            cursor = Some((path.clone(), Pos::new(line, column)));
            text = text.replacen("$0", "", 1);
        }
        let lang = Lang::from_path(std::path::Path::new(&path)).expect("a .py or .rs path");
        entries.push(FileEntry {
            path,
            lang,
            size: text.len() as u64,
            mtime_ns: 0,
            hash: [0; 16],
            lines: text.lines().count() as u32,
            symbols: crate::extract::extract(lang, &text),
        });
    }
    let (path, pos) = cursor.expect("a $0 cursor");
    (Snapshot::from_entries(entries), path, pos)
}

fn render(resolver: &Resolver, targets: &[Target]) -> String {
    targets.iter().map(|t| format!("{}\n", resolver.describe(*t))).collect()
}

fn render_hits(resolver: &Resolver, hits: &[Hit]) -> String {
    hits.iter()
        .map(|h| {
            format!(
                "{}:{} {} in {}\n",
                resolver.path(h.file),
                h.line,
                h.relation.as_str(),
                h.symbol.as_deref().unwrap_or("<module>")
            )
        })
        .collect()
}

/// What the name at the cursor resolves to.
fn check(fixture: &str, expect: Expect) {
    let (snapshot, path, pos) = snapshot(fixture);
    let resolver = snapshot.resolver();
    let file = resolver.file_index(&path).unwrap();
    let Some(at) = resolver.at(file, pos) else {
        expect.assert_eq("no name at the cursor\n");
        return;
    };
    let mut out = format!("{}\n", at.name);
    out.push_str(&render(&resolver, &at.resolution.resolved));
    if !at.resolution.candidates.is_empty() {
        out.push_str("candidates:\n");
        out.push_str(&render(&resolver, &at.resolution.candidates));
    }
    if let Some(note) = &at.resolution.note {
        out.push_str(&format!("note: {note}\n"));
    }
    expect.assert_eq(&out);
}

/// Every reference to what the name at the cursor resolves to.
fn check_refs(fixture: &str, expect: Expect) {
    let (snapshot, path, pos) = snapshot(fixture);
    let resolver = snapshot.resolver();
    let file = resolver.file_index(&path).unwrap();
    let at = resolver.at(file, pos).expect("a name at the cursor");
    let target = *at.resolution.resolved.first().expect("a resolved name at the cursor");
    let (resolved, candidates) = resolver.references(target);
    let mut out = render_hits(&resolver, &resolved);
    if !candidates.is_empty() {
        out.push_str("candidates:\n");
        out.push_str(&render_hits(&resolver, &candidates));
    }
    expect.assert_eq(&out);
}

// ----- Python -----

#[test]
fn py_import_module_from_path() {
    check(
        r#"
//- pkg/__init__.py
//- pkg/util.py
def helper():
    pass
//- main.py
import pkg.util
pkg.util.hel$0per()
"#,
        expect![[r#"
            helper
            function helper (pkg/util.py:1)
        "#]],
    );
}

#[test]
fn py_import_as() {
    check(
        r#"
//- pkg/__init__.py
//- pkg/util.py
def helper():
    pass
//- main.py
import pkg.util as u
u.hel$0per()
"#,
        expect![[r#"
            helper
            function helper (pkg/util.py:1)
        "#]],
    );
}

#[test]
fn py_from_dot_import_submodule() {
    check(
        r#"
//- pkg/__init__.py
//- pkg/util.py
LIMIT = 3
//- pkg/main.py
from . import util
print(util.LIM$0IT)
"#,
        expect![[r#"
            LIMIT
            variable LIMIT (pkg/util.py:1)
        "#]],
    );
}

#[test]
fn py_from_dotdot_import_as() {
    check(
        r#"
//- app/__init__.py
//- app/a.py
def b():
    pass
//- app/sub/__init__.py
//- app/sub/m.py
from ..a import b as c
c$0()
"#,
        expect![[r#"
            c
            function b (app/a.py:1)
        "#]],
    );
}

#[test]
fn py_init_reexport() {
    check(
        r#"
//- shop/__init__.py
from .cart import Cart
//- shop/cart.py
class Cart:
    pass
//- main.py
from shop import Cart
Ca$0rt()
"#,
        expect![[r#"
            Cart
            class Cart (shop/cart.py:1)
        "#]],
    );
}

#[test]
fn py_all_limits_star_import() {
    check(
        r#"
//- lib.py
__all__ = ["public"]
def public():
    pass
def hidden():
    pass
//- main.py
from lib import *
public()
hid$0den()
"#,
        expect![[r#"
            hidden
        "#]],
    );
}

#[test]
fn py_star_import_sees_all() {
    check(
        r#"
//- lib.py
__all__ = ["public"]
def public():
    pass
//- main.py
from lib import *
pub$0lic()
"#,
        expect![[r#"
            public
            function public (lib.py:2)
        "#]],
    );
}

#[test]
fn py_method_via_self() {
    check(
        r#"
//- cart.py
class Cart:
    def add(self, item):
        self.items.append(item)
    def add_all(self, items):
        for i in items:
            self.a$0dd(i)
"#,
        expect![[r#"
            add
            method Cart.add (cart.py:2)
        "#]],
    );
}

#[test]
fn py_classmethod_via_cls() {
    check(
        r#"
//- cart.py
class Cart:
    @classmethod
    def empty(cls):
        return cls.mak$0e([])
    @classmethod
    def make(cls, items):
        return cls()
"#,
        expect![[r#"
            make
            method Cart.make (cart.py:6)
        "#]],
    );
}

#[test]
fn py_inherited_method_through_bases() {
    check(
        r#"
//- base.py
class Base:
    def save(self):
        pass
//- model.py
from base import Base
class Mid(Base):
    pass
class Model(Mid):
    def run(self):
        self.sa$0ve()
"#,
        expect![[r#"
            save
            method Base.save (base.py:2)
        "#]],
    );
}

#[test]
fn py_super_call_skips_own_class() {
    check(
        r#"
//- m.py
class Base:
    def save(self):
        pass
class Model(Base):
    def save(self):
        super().sa$0ve()
"#,
        expect![[r#"
            save
            method Base.save (m.py:2)
        "#]],
    );
}

#[test]
fn py_instance_attribute_set_in_init() {
    check(
        r#"
//- m.py
class Cart:
    def __init__(self):
        self.items = []
    def count(self):
        return len(self.ite$0ms)
"#,
        expect![[r#"
            items
            attribute items (m.py:3)
        "#]],
    );
}

/// `self.shape = shape` makes the attribute what the annotated parameter names.
#[test]
fn py_an_attribute_set_from_an_annotated_parameter() {
    check(
        r#"
//- a.py
class Circle:
    def area(self): return 1
class Square:
    def area(self): return 2
class Scene:
    def __init__(self, shape: Circle):
        self.shape = shape
    def f(self):
        return self.shape.ar$0ea()
"#,
        expect![[r#"
            area
            method Circle.area (a.py:2)
        "#]],
    );
}

#[test]
fn py_module_attribute() {
    check(
        r#"
//- config.py
TIMEOUT = 5
//- main.py
import config
print(config.TIME$0OUT)
"#,
        expect![[r#"
            TIMEOUT
            variable TIMEOUT (config.py:1)
        "#]],
    );
}

#[test]
fn py_parameter_shadows_module_name() {
    check(
        r#"
//- m.py
item = 1
def f(item):
    return it$0em
"#,
        expect![[r#"
            item
            parameter item (m.py:2)
        "#]],
    );
}

#[test]
fn py_local_assignment_shadows_and_last_binding_wins() {
    check(
        r#"
//- m.py
total = 0
def f():
    total = 1
    total = 2
    return tot$0al
"#,
        expect![[r#"
            total
            local variable total (m.py:4)
        "#]],
    );
}

#[test]
fn py_comprehension_variable_is_its_own_scope() {
    check(
        r#"
//- m.py
x = 10
def f(xs):
    ys = [x for x in xs]
    return $0x
"#,
        expect![[r#"
            x
            variable x (m.py:1)
        "#]],
    );
}

#[test]
fn py_nested_function_sees_enclosing_local() {
    check(
        r#"
//- m.py
def outer():
    def helper():
        return 1
    def inner():
        return hel$0per()
    return inner
"#,
        expect![[r#"
            helper
            function outer.helper (m.py:2)
        "#]],
    );
}

#[test]
fn py_global_statement_sends_name_to_module() {
    check(
        r#"
//- m.py
count = 0
def bump():
    global count
    count = count + 1
    return cou$0nt
"#,
        expect![[r#"
            count
            variable count (m.py:1)
        "#]],
    );
}

#[test]
fn py_class_body_is_not_visible_from_methods() {
    check(
        r#"
//- m.py
size = 1
class A:
    size = 2
    def f(self):
        return si$0ze
"#,
        expect![[r#"
            size
            variable size (m.py:1)
        "#]],
    );
}

#[test]
fn py_instance_from_constructor_call_and_annotation() {
    check(
        r#"
//- cart.py
class Cart:
    def add(self, x):
        pass
//- main.py
from cart import Cart
def f(other: Cart):
    c = Cart()
    c.add(1)
    other.a$0dd(2)
"#,
        expect![[r#"
            add
            method Cart.add (cart.py:2)
        "#]],
    );
}

#[test]
fn py_return_annotation_gives_the_instance() {
    check(
        r#"
//- m.py
class Cart:
    def add(self, x):
        pass
def make() -> Cart:
    return Cart()
make().a$0dd(1)
"#,
        expect![[r#"
            add
            method Cart.add (m.py:2)
        "#]],
    );
}

#[test]
fn py_unknown_receiver_gives_candidates_not_resolved() {
    check(
        r#"
//- a.py
class Cart:
    def add(self, x):
        pass
//- b.py
class Set:
    def add(self, x):
        pass
//- main.py
def f(thing):
    thing.a$0dd(1)
"#,
        expect![[r#"
            add
            candidates:
            method Cart.add (a.py:2)
            method Set.add (b.py:2)
        "#]],
    );
}

#[test]
fn py_test_parameter_means_the_nearest_fixture_of_its_name() {
    // pytest hands a test the fixture its parameter names: the conftest.py of its own folder
    // before the one above it, never another folder's or a plain function of the name.
    let files = r#"
//- conftest.py
import pytest

@pytest.fixture
def store(tmp_path):
    return tmp_path
//- tests/conftest.py
from pytest import fixture

@fixture(scope="module")
def store():
    return {}
//- other/conftest.py
import pytest

@pytest.fixture
def store():
    return []
//- app/store.py
def store():
    return None
//- tests/test_save.py
def test_save(store):
    sto$0re["a"] = 1
"#;
    check(
        files,
        expect![[r#"
            store
            function store (tests/conftest.py:4)
        "#]],
    );
    // The folder above, when its own has none.
    check(
        &files.replace("//- tests/conftest.py", "//- tests/unit/conftest.py"),
        expect![[r#"
            store
            function store (conftest.py:4)
        "#]],
    );
    // A fixture in the test's own module comes first.
    check(
        &format!("{files}\n@fixture\ndef store():\n    return 0\n")
            .replace("def test_save(store):", "from pytest import fixture\ndef test_save(store):"),
        expect![[r#"
            store
            function store (tests/test_save.py:6)
        "#]],
    );
}

#[test]
fn py_a_class_fixture_serves_its_class_and_a_test_modules_serve_it_alone() {
    let files = r#"
//- tests/conftest.py
import pytest

@pytest.fixture
def db():
    return "conftest"
//- tests/test_other.py
import pytest

@pytest.fixture
def db():
    return "other module"
//- tests/test_db.py
import pytest

class TestWithOwn:
    @pytest.fixture
    def db(self):
        return "class"

    def test_in_class(self, db):
        assert d$0b

def test_outside(db):
    assert db
"#;
    check(
        files,
        expect![[r#"
            db
            method TestWithOwn.db (tests/test_db.py:5)
        "#]],
    );
    // Outside the class: neither the class's fixture nor the other test module's.
    check(
        &files
            .replace("assert d$0b", "assert db")
            .replace("def test_outside(db):\n    assert db", "def test_outside(db):\n    assert d$0b"),
        expect![[r#"
            db
            function db (tests/conftest.py:4)
        "#]],
    );
}

#[test]
fn py_test_parameter_means_a_plugins_fixture_and_two_plugins_are_candidates() {
    let plugin = r#"
//- src/plug/tmpdir.py
import pytest

@pytest.fixture
def tmp_path(request):
    return request
//- testing/test_paths.py
class TestPaths:
    def test_join(self, tmp_path):
        assert tmp_p$0ath
"#;
    check(
        plugin,
        expect![[r#"
            tmp_path
            function tmp_path (src/plug/tmpdir.py:4)
        "#]],
    );
    check(
        &format!(
            "{plugin}//- src/other/paths.py\nimport pytest\n@pytest.fixture\ndef tmp_path():\n    pass\n"
        ),
        expect![[r#"
            tmp_path
            candidates:
            function tmp_path (src/other/paths.py:3)
            function tmp_path (src/plug/tmpdir.py:4)
        "#]],
    );
}

#[test]
fn py_references_of_a_fixture_are_the_uses_of_the_parameters_it_fills() {
    check_refs(
        r#"
//- tests/conftest.py
import pytest

@pytest.fixture
def cart():
    return []

@pytest.fixture
def full_cart(cart):
    cart.append(1)
    return cart
//- tests/test_cart.py
def test_empty(cart):
    assert not ca$0rt

def helper(cart):
    return cart
"#,
        expect![[r#"
            tests/conftest.py:4 definition in cart
            tests/conftest.py:8 reference in full_cart
            tests/conftest.py:9 reference in full_cart
            tests/conftest.py:10 reference in full_cart
            tests/test_cart.py:1 reference in test_empty
            tests/test_cart.py:2 reference in test_empty
        "#]],
    );
}

#[test]
fn py_a_fixture_that_overrides_one_of_its_name_takes_the_one_above() {
    check(
        r#"
//- conftest.py
import pytest

@pytest.fixture
def db():
    return {}
//- tests/conftest.py
import pytest

@pytest.fixture
def db(db):
    return d$0b
"#,
        expect![[r#"
            db
            function db (conftest.py:4)
        "#]],
    );
}

#[test]
fn py_a_renamed_fixture_and_a_test_outside_a_test_module_fill_nothing() {
    // `name="store"` is called up as `store`, not by the function's name.
    check(
        r#"
//- conftest.py
import pytest

@pytest.fixture(name="store")
def make_store():
    return {}
//- tests/test_save.py
def test_save(make_store):
    assert make_st$0ore
"#,
        expect![[r#"
            make_store
            parameter make_store (tests/test_save.py:1)
        "#]],
    );
    check(
        r#"
//- conftest.py
import pytest

@pytest.fixture
def url():
    return "x"
//- src/net.py
def test_connection(url):
    return u$0rl
"#,
        expect![[r#"
            url
            parameter url (src/net.py:1)
        "#]],
    );
}

#[test]
fn py_parameter_outside_a_test_or_fixture_is_its_own() {
    check(
        r#"
//- conftest.py
import pytest

@pytest.fixture
def store():
    return {}
//- app.py
def save(store):
    sto$0re["a"] = 1
"#,
        expect![[r#"
            store
            parameter store (app.py:1)
        "#]],
    );
}

#[test]
fn py_import_of_outside_module_says_so() {
    check(
        r#"
//- main.py
from collections import Ord$0eredDict
"#,
        expect![[r#"
            OrderedDict
            note: OrderedDict is imported from collections, which is outside the repository
        "#]],
    );
}

#[test]
fn py_references_of_a_method_split_resolved_and_candidates() {
    check_refs(
        r#"
//- shop/__init__.py
from .cart import Cart
//- shop/cart.py
class Cart:
    def a$0dd(self, item):
        pass
    def add_twice(self, item):
        self.add(item)
        self.add(item)
//- shop/other.py
class Basket:
    def add(self, item):
        pass
//- main.py
from shop import Cart
def fill(cart: Cart, thing):
    cart.add(1)
    thing.add(2)
    Cart().add(3)
"#,
        expect![[r#"
            shop/cart.py:2 definition in Cart.add
            main.py:3 call in fill
            main.py:5 call in fill
            shop/cart.py:5 call in Cart.add_twice
            shop/cart.py:6 call in Cart.add_twice
            candidates:
            main.py:4 call in fill
        "#]],
    );
}

#[test]
fn py_references_of_a_local_stay_in_its_function() {
    check_refs(
        r#"
//- m.py
def f():
    total = 0
    for i in range(3):
        total += i
    return tot$0al
def g():
    total = 5
    return total
"#,
        expect![[r#"
            m.py:2 definition in f
            m.py:4 definition in f
            m.py:5 reference in f
        "#]],
    );
}

// ----- Rust -----

#[test]
fn rs_module_tree_from_mod_rs_and_file_layout() {
    check(
        r#"
//- src/lib.rs
mod shapes;
mod geo;
fn main() {
    let d = geo::dist$0ance();
    shapes::circle::area();
}
//- src/geo.rs
pub fn distance() -> f64 { 0.0 }
//- src/shapes/mod.rs
pub mod circle;
//- src/shapes/circle.rs
pub fn area() -> f64 { 1.0 }
"#,
        expect![[r#"
            distance
            function distance (src/geo.rs:1)
        "#]],
    );
}

#[test]
fn rs_foo_rs_beside_foo_dir() {
    check(
        r#"
//- src/lib.rs
mod net;
fn main() {
    net::tcp::conn$0ect();
}
//- src/net.rs
pub mod tcp;
//- src/net/tcp.rs
pub fn connect() {}
"#,
        expect![[r#"
            connect
            function connect (src/net/tcp.rs:1)
        "#]],
    );
}

#[test]
fn rs_use_with_crate_super_self() {
    check(
        r#"
//- src/lib.rs
mod geo;
mod shapes;
//- src/geo.rs
pub struct Point;
//- src/shapes/mod.rs
mod circle;
pub trait Shape {}
//- src/shapes/circle.rs
use crate::geo::Point;
use super::Shape;
use self::inner::Radius;
mod inner { pub struct Radius; }
fn f(p: Point, r: Radius) -> impl Sha$0pe {}
"#,
        expect![[r#"
            Shape
            interface Shape (src/shapes/mod.rs:2)
        "#]],
    );
}

#[test]
fn rs_use_group_rename_and_glob() {
    check(
        r#"
//- src/lib.rs
mod geo;
mod prelude;
use geo::{Point as P, distance};
use prelude::*;
fn f() {
    let a = P::origin();
    distance();
    hel$0per();
}
//- src/geo.rs
pub struct Point;
impl Point { pub fn origin() -> Self { Point } }
pub fn distance() {}
//- src/prelude.rs
pub fn helper() {}
"#,
        expect![[r#"
            helper
            function helper (src/prelude.rs:1)
        "#]],
    );
}

#[test]
fn rs_renamed_import_resolves_through_the_alias() {
    check(
        r#"
//- src/lib.rs
mod geo;
use geo::Point as P;
fn f() {
    let a = P::ori$0gin();
}
//- src/geo.rs
pub struct Point;
impl Point { pub fn origin() -> Self { Point } }
"#,
        expect![[r#"
            origin
            method Point::origin (src/geo.rs:2)
        "#]],
    );
}

#[test]
fn rs_associated_item_through_reexport() {
    check(
        r#"
//- src/lib.rs
mod shapes;
use shapes::Circle;
fn f() {
    let c = Circle::n$0ew(1.0);
}
//- src/shapes/mod.rs
mod circle;
pub use circle::Circle;
//- src/shapes/circle.rs
pub struct Circle { r: f64 }
impl Circle {
    pub fn new(r: f64) -> Self { Circle { r } }
}
"#,
        expect![[r#"
            new
            method Circle::new (src/shapes/circle.rs:3)
        "#]],
    );
}

#[test]
fn rs_method_call_on_evident_receiver() {
    check(
        r#"
//- src/lib.rs
pub struct Circle;
impl Circle {
    pub fn new() -> Self { Circle }
    pub fn area(&self) -> f64 { 1.0 }
}
pub struct Square;
impl Square {
    pub fn area(&self) -> f64 { 2.0 }
}
fn f() {
    let c = Circle::new();
    c.ar$0ea();
}
"#,
        expect![[r#"
            area
            method Circle::area (src/lib.rs:4)
        "#]],
    );
}

/// A struct's field says what `self.shape` holds, through an `Arc` too, and a parameter's
/// field as well: the method called on it is that type's, not every method of its name.
#[test]
fn rs_method_call_through_a_typed_field() {
    let shapes = "//- src/lib.rs\npub struct Circle;\nimpl Circle { pub fn area(&self) -> f64 { 1.0 } }\npub struct Square;\nimpl Square { pub fn area(&self) -> f64 { 2.0 } }\npub struct Scene { shape: Circle, shared: std::sync::Arc<Square> }\n";
    check(
        &format!("{shapes}impl Scene {{\n    fn f(&self) -> f64 {{ self.shape.ar$0ea() }}\n}}\n"),
        expect![[r#"
            area
            method Circle::area (src/lib.rs:2)
        "#]],
    );
    check(
        &format!("{shapes}fn g(s: &Scene) -> f64 {{ s.shared.ar$0ea() }}\n"),
        expect![[r#"
            area
            method Square::area (src/lib.rs:4)
        "#]],
    );
    // A field of no type the repository defines leaves the call to its candidates.
    check(
        "//- src/lib.rs\npub struct Circle;\nimpl Circle { pub fn area(&self) -> f64 { 1.0 } }\npub struct Square;\nimpl Square { pub fn area(&self) -> f64 { 2.0 } }\npub struct Scene { items: Vec<Circle> }\nfn g(s: &Scene) -> f64 { s.items.ar$0ea() }\n",
        expect![[r#"
            area
            candidates:
            method Circle::area (src/lib.rs:2)
            method Square::area (src/lib.rs:4)
        "#]],
    );
}

#[test]
fn rs_trait_method_through_impl_and_self() {
    check(
        r#"
//- src/lib.rs
pub trait Shape {
    fn area(&self) -> f64;
    fn describe(&self) -> String { format!("{}", self.area()) }
}
pub struct Square;
impl Shape for Square {
    fn area(&self) -> f64 { 2.0 }
}
impl Square {
    fn twice(&self) -> f64 { self.ar$0ea() * 2.0 }
}
"#,
        expect![[r#"
            area
            method Square::area (src/lib.rs:7)
        "#]],
    );
}

#[test]
fn rs_trait_default_method_on_implementor() {
    check(
        r#"
//- src/lib.rs
pub trait Shape {
    fn area(&self) -> f64;
    fn describe(&self) -> String { String::new() }
}
pub struct Square;
impl Shape for Square {
    fn area(&self) -> f64 { 2.0 }
}
fn f(s: &Square) {
    s.descr$0ibe();
}
"#,
        expect![[r#"
            describe
            method Shape::describe (src/lib.rs:3)
        "#]],
    );
}

#[test]
fn rs_unknown_receiver_gives_candidates() {
    check(
        r#"
//- src/lib.rs
pub struct Circle;
impl Circle { pub fn area(&self) -> f64 { 1.0 } }
pub struct Square;
impl Square { pub fn area(&self) -> f64 { 2.0 } }
fn f<T>(items: Vec<T>) {
    items[0].ar$0ea();
}
"#,
        expect![[r#"
            area
            candidates:
            method Circle::area (src/lib.rs:2)
            method Square::area (src/lib.rs:4)
        "#]],
    );
}

#[test]
fn rs_local_let_shadows_and_param() {
    check(
        r#"
//- src/lib.rs
const x: u8 = 0;
fn f(x: u8) -> u8 {
    let x = x + 1;
    let y = { let x = 5; x };
    $0x + y
}
"#,
        expect![[r#"
            x
            local variable x (src/lib.rs:3)
        "#]],
    );
}

#[test]
fn rs_references_of_a_method_resolved_and_candidates() {
    check_refs(
        r#"
//- src/lib.rs
mod shapes;
use shapes::Circle;
fn f(c: &Circle, other: Thing) -> f64 {
    c.area() + other.area() + Circle::new().area()
}
//- src/shapes.rs
pub struct Circle;
impl Circle {
    pub fn new() -> Self { Circle }
    pub fn ar$0ea(&self) -> f64 { 1.0 }
}
pub struct Square;
impl Square {
    pub fn area(&self) -> f64 { self.area() }
}
"#,
        expect![[r#"
            src/shapes.rs:4 definition in Circle::area
            src/lib.rs:4 call in f
            src/lib.rs:4 call in f
            candidates:
            src/lib.rs:4 call in f
        "#]],
    );
}

#[test]
fn py_keyword_argument_names_the_parameter() {
    check(
        r#"
//- m.py
def fetch(url, timeout=10):
    pass
class Client:
    def __init__(self, base, retries=3):
        pass
fetch("x", time$0out=5)
Client("y", retries=1)
"#,
        expect![[r#"
            timeout
            parameter timeout (m.py:1)
        "#]],
    );
}

#[test]
fn py_name_from_an_outside_module_stops_at_its_import() {
    check(
        r#"
//- collections/__init__.py
from _collections import deque
//- main.py
from collections import deque
de$0que()
"#,
        expect![[r#"
            deque
            deque imported from _collections (collections/__init__.py:1)
        "#]],
    );
}

#[test]
fn py_module_bound_by_another_module() {
    check(
        r#"
//- posixpath.py
extsep = '.'
//- os.py
import posixpath as path
//- main.py
from os.path import extsep
print(ext$0sep)
"#,
        expect![[r#"
            extsep
            variable extsep (posixpath.py:1)
        "#]],
    );
}

#[test]
fn py_right_side_of_an_assignment_sees_the_previous_binding() {
    check(
        r#"
//- m.py
def f(s):
    s = s.strip()
    s = "<" + $0s
    return s
"#,
        expect![[r#"
            s
            local variable s (m.py:2)
        "#]],
    );
}

#[test]
fn rs_field_access_is_the_field_not_the_method_of_its_name() {
    check(
        r#"
//- src/lib.rs
pub struct Entry { path: String }
impl Entry {
    pub fn path(&self) -> &str { &self.pa$0th }
}
"#,
        expect![[r#"
            path
            field path (src/lib.rs:1)
        "#]],
    );
}

#[test]
fn rs_match_arm_binding_stays_in_its_arm() {
    check(
        r#"
//- src/lib.rs
fn f(x: Option<u8>) -> u8 {
    let canonical = match x {
        Some(canonical) => canonical,
        None => 0,
    };
    canon$0ical + 1
}
"#,
        expect![[r#"
            canonical
            local variable canonical (src/lib.rs:2)
        "#]],
    );
}

#[test]
fn py_bases_of_a_nested_class_are_looked_up_around_it() {
    check(
        r#"
//- m.py
class Suite:
    class Base:
        pass
    class Child(Ba$0se):
        pass
"#,
        expect![[r#"
            Base
            class Suite.Base (m.py:2)
        "#]],
    );
}

#[test]
fn py_a_function_defined_in_both_branches_is_one_name() {
    check_refs(
        r#"
//- m.py
import sys
if sys.platform == "win32":
    def $0quote(s):
        return s
else:
    def quote(s):
        return s
def f():
    return quote("x")
"#,
        expect![[r#"
            m.py:3 definition in quote
            m.py:6 definition in quote
            m.py:9 call in f
        "#]],
    );
}

#[test]
fn py_member_of_an_outside_module_is_no_candidate() {
    check(
        r#"
//- pickle.py
def loads(data):
    pass
//- main.py
import marshal
marshal.lo$0ads(b"")
"#,
        expect![[r#"
            loads
            note: marshal is outside the repository
        "#]],
    );
}

#[test]
fn rs_path_into_an_outside_crate_is_no_candidate() {
    check(
        r#"
//- src/lib.rs
pub fn read() {}
fn f() {
    std::fs::re$0ad("x");
}
"#,
        expect![[r#"
            read
            note: std::fs is outside the repository
        "#]],
    );
}

#[test]
fn callees_are_functions_not_callbacks() {
    let (snapshot, path, pos) = snapshot(
        r#"
//- m.py
def helper():
    pass
def run(callback, $0x):
    helper()
    callback(x)
"#,
    );
    let resolver = snapshot.resolver();
    let file = resolver.file_index(&path).unwrap();
    let run = Target::Def { file, def: 1 };
    let (resolved, candidates) = resolver.callees(run);
    expect![[r#"
        m.py:1 call in helper
    "#]]
    .assert_eq(&render_hits(&resolver, &resolved));
    assert!(candidates.is_empty());
    let _ = pos;
}

const GO_SHOP: &str = r#"
//- cart/cart.go
package cart

import "example.com/shop/pricing"

type Cart struct {
	Items []Item
}

func New() *Cart {
	return &Cart{}
}

func (c *Cart) Total() float64 {
	return pricing.Apply(0)
}
//- cart/item.go
package cart

type Item struct{}

func (i Item) Subtotal() float64 { return 1 }
//- pricing/pricing.go
package pricing

type Discounter interface {
	Discount(amount float64) float64
}

func Apply(amount float64) float64 { return amount }
"#;

#[test]
fn go_package_function_through_its_import_path() {
    check(
        &format!(
            "{GO_SHOP}//- main.go\npackage main\n\nimport \"example.com/shop/cart\"\n\nfunc main() {{ cart.Ne$0w() }}\n"
        ),
        expect![[r#"
            New
            function New (cart/cart.go:9)
        "#]],
    );
}

#[test]
fn go_method_on_a_constructors_result() {
    check(
        &format!(
            "{GO_SHOP}//- main.go\npackage main\n\nimport \"example.com/shop/cart\"\n\nfunc main() {{\n\tc := cart.New()\n\tc.To$0tal()\n}}\n"
        ),
        expect![[r#"
            Total
            method Cart.Total (cart/cart.go:13)
        "#]],
    );
}

#[test]
fn go_method_on_a_composite_literal_and_an_aliased_import() {
    check(
        &format!(
            "{GO_SHOP}//- main.go\npackage main\n\nimport shop \"example.com/shop/cart\"\n\nfunc main() {{\n\tc := &shop.Cart{{}}\n\tc.To$0tal()\n}}\n"
        ),
        expect![[r#"
            Total
            method Cart.Total (cart/cart.go:13)
        "#]],
    );
}

#[test]
fn go_a_name_from_another_file_of_the_package() {
    check(
        &format!(
            "{GO_SHOP}//- cart/more.go\npackage cart\n\nfunc Sum(i It$0em) float64 {{ return i.Subtotal() }}\n"
        ),
        expect![[r#"
            Item
            class Item (cart/item.go:3)
        "#]],
    );
}

#[test]
fn go_method_through_a_parameters_type() {
    check(
        &format!(
            "{GO_SHOP}//- cart/more.go\npackage cart\n\nfunc Sum(i Item) float64 {{ return i.Sub$0total() }}\n"
        ),
        expect![[r#"
            Subtotal
            method Item.Subtotal (cart/item.go:5)
        "#]],
    );
}

#[test]
fn go_interface_method() {
    check(
        &format!(
            "{GO_SHOP}//- pricing/use.go\npackage pricing\n\nfunc Use(d Discounter) float64 {{ return d.Disc$0ount(1) }}\n"
        ),
        expect![[r#"
            Discount
            method Discounter.Discount (pricing/pricing.go:4)
        "#]],
    );
}

#[test]
fn go_a_package_outside_the_repository() {
    check(
        &format!(
            "{GO_SHOP}//- main.go\npackage main\n\nimport \"fmt\"\n\nfunc main() {{ fmt.Prin$0tln() }}\n"
        ),
        expect![[r#"
            Println
            note: fmt is outside the repository
        "#]],
    );
}

#[test]
fn go_references_across_packages() {
    check_refs(
        &format!(
            "{GO_SHOP}//- main.go\npackage main\n\nimport \"example.com/shop/cart\"\n\nfunc main() {{\n\tc := cart.New()\n\tc.Total()\n}}\n//- cart/again.go\npackage cart\n\nfunc (c *Cart) Twice() float64 {{ return c.To$0tal() * 2 }}\n"
        ),
        expect![[r#"
            cart/cart.go:13 definition in Cart.Total
            cart/again.go:3 call in Cart.Twice
            main.go:7 call in main
        "#]],
    );
}

const TS_SHOP: &str = r#"
//- src/item.ts
export class Item {
  subtotal(): number { return 1; }
}
//- src/cart.ts
import { Item } from './item';
export const TAX = 0.2;
export class Cart {
  items: Item[] = [];
  add(item: Item): void { this.items.push(item); }
  total(): number { return TAX; }
}
export function makeCart(): Cart { return new Cart(); }
//- src/index.ts
export * from './cart';
export { Item as Line } from './item';
//- src/vip.ts
import { Cart } from './cart';
export class VipCart extends Cart {
  total(): number { return super.total() * 0.9; }
}
"#;

#[test]
fn ts_named_import_through_a_re_export() {
    check(
        &format!(
            "{TS_SHOP}//- src/main.ts\nimport {{ Cart }} from './index';\nconst c = new Cart();\nc.to$0tal();\n"
        ),
        expect![[r#"
            total
            method Cart.total (src/cart.ts:6)
        "#]],
    );
}

#[test]
fn ts_a_renamed_re_export_and_a_typed_parameter() {
    check(
        &format!(
            "{TS_SHOP}//- src/main.ts\nimport {{ Line }} from './index';\nfunction f(l: Line) {{ return l.sub$0total(); }}\n"
        ),
        expect![[r#"
            subtotal
            method Item.subtotal (src/item.ts:2)
        "#]],
    );
}

#[test]
fn ts_a_functions_return_type_types_its_result() {
    check(
        &format!(
            "{TS_SHOP}//- src/main.ts\nimport {{ makeCart }} from './cart';\nconst c = makeCart();\nc.a$0dd(null);\n"
        ),
        expect![[r#"
            add
            method Cart.add (src/cart.ts:5)
        "#]],
    );
}

#[test]
fn ts_a_method_inherited_through_extends() {
    check(
        &format!(
            "{TS_SHOP}//- src/main.ts\nimport {{ VipCart }} from './vip';\nconst v = new VipCart();\nv.a$0dd(null);\n"
        ),
        expect![[r#"
            add
            method Cart.add (src/cart.ts:5)
        "#]],
    );
}

#[test]
fn ts_a_package_outside_the_repository() {
    check(
        &format!("{TS_SHOP}//- src/main.ts\nimport {{ z$0 }} from 'zod';\n"),
        expect![[r#"
        z
        note: z is imported from zod, which is outside the repository
    "#]],
    );
}

#[test]
fn js_require_destructured_and_a_namespace_import() {
    check(
        "//- lib/pricing.js\nfunction applyDiscount(a) { return a; }\nmodule.exports = { applyDiscount };\n//- lib/cart.js\nconst { applyDiscount } = require('./pricing');\nfunction total() { return applyDis$0count(1); }\n",
        expect![[r#"
            applyDiscount
            function applyDiscount (lib/pricing.js:1)
        "#]],
    );
    check(
        "//- lib/pricing.js\nexport function applyDiscount(a) { return a; }\n//- index.mjs\nimport * as pricing from './lib/pricing.js';\npricing.applyDis$0count(1);\n",
        expect![[r#"
            applyDiscount
            function applyDiscount (lib/pricing.js:1)
        "#]],
    );
}

#[test]
fn ts_references_across_modules() {
    check_refs(
        &format!(
            "{TS_SHOP}//- src/main.ts\nimport {{ Cart }} from './index';\nnew Cart().total();\n//- src/again.ts\nimport {{ Cart }} from './cart';\nfunction g(c: Cart) {{ return c.to$0tal(); }}\n"
        ),
        expect![[r#"
            src/cart.ts:6 definition in Cart.total
            src/again.ts:2 call in g
            src/main.ts:2 call in <module>
            src/vip.ts:3 call in VipCart.total
        "#]],
    );
}

const JAVA_SHOP: &str = r#"
//- src/main/java/shop/Item.java
package shop;

public class Item implements Priced {
    public double subtotal() { return 1; }
}
//- src/main/java/shop/Priced.java
package shop;

public interface Priced {
    double subtotal();
}
//- src/main/java/shop/Cart.java
package shop;

import java.util.List;
import shop.pricing.Pricing;

public class Cart {
    private List<Item> items;
    private Item last;

    public double total() { return Pricing.apply(0); }

    public static class Line {
        public String render() { return ""; }
    }
}
//- src/main/java/shop/pricing/Pricing.java
package shop.pricing;

public final class Pricing {
    public static double apply(double amount) { return amount; }
}
"#;

#[test]
fn java_a_static_method_through_a_single_type_import() {
    check(
        &format!(
            "{JAVA_SHOP}//- src/main/java/shop/Main.java\npackage shop;\n\nimport shop.pricing.Pricing;\n\nclass Main {{ double f() {{ return Pricing.ap$0ply(1); }} }}\n"
        ),
        expect![[r#"
            apply
            method Pricing.apply (src/main/java/shop/pricing/Pricing.java:4)
        "#]],
    );
}

#[test]
fn java_a_static_import_and_an_on_demand_import() {
    check(
        &format!(
            "{JAVA_SHOP}//- src/main/java/app/Main.java\npackage app;\n\nimport static shop.pricing.Pricing.apply;\n\nclass Main {{ double f() {{ return ap$0ply(1); }} }}\n"
        ),
        expect![[r#"
            apply
            method Pricing.apply (src/main/java/shop/pricing/Pricing.java:4)
        "#]],
    );
    check(
        &format!(
            "{JAVA_SHOP}//- src/main/java/app/Main.java\npackage app;\n\nimport shop.*;\n\nclass Main {{ void f(Cart c) {{ c.tot$0al(); }} }}\n"
        ),
        expect![[r#"
            total
            method Cart.total (src/main/java/shop/Cart.java:10)
        "#]],
    );
}

#[test]
fn java_a_class_of_the_same_package_in_another_source_root() {
    check(
        &format!(
            "{JAVA_SHOP}//- src/test/java/shop/CartTest.java\npackage shop;\n\nclass CartTest {{ void t() {{ Cart c = new Cart(); c.tot$0al(); }} }}\n"
        ),
        expect![[r#"
            total
            method Cart.total (src/main/java/shop/Cart.java:10)
        "#]],
    );
}

#[test]
fn java_a_nested_class_and_a_var_from_new() {
    check(
        &format!(
            "{JAVA_SHOP}//- src/main/java/shop/Main.java\npackage shop;\n\nclass Main {{ void f() {{ var l = new Cart.Line(); l.ren$0der(); }} }}\n"
        ),
        expect![[r#"
            render
            method Cart.Line.render (src/main/java/shop/Cart.java:13)
        "#]],
    );
}

#[test]
fn java_inherited_methods_bare_through_super_and_through_an_interface() {
    let vip = "//- src/main/java/shop/Vip.java\npackage shop;\n\nclass Vip extends Cart {\n    public double total() { return super.tot$0al(); }\n}\n";
    check(
        &format!("{JAVA_SHOP}{vip}"),
        expect![[r#"
            total
            method Cart.total (src/main/java/shop/Cart.java:10)
        "#]],
    );
    let vip = "//- src/main/java/shop/Vip.java\npackage shop;\n\nclass Vip extends Cart {\n    double twice() { return tot$0al() * 2; }\n}\n";
    check(
        &format!("{JAVA_SHOP}{vip}"),
        expect![[r#"
            total
            method Cart.total (src/main/java/shop/Cart.java:10)
        "#]],
    );
    check(
        &format!(
            "{JAVA_SHOP}//- src/main/java/shop/Main.java\npackage shop;\n\nclass Main {{ double f(Priced p) {{ return p.subt$0otal(); }} }}\n"
        ),
        expect![[r#"
            subtotal
            method Priced.subtotal (src/main/java/shop/Priced.java:4)
        "#]],
    );
}

#[test]
fn java_a_fields_declared_type_and_a_loop_variable() {
    let main = "//- src/main/java/shop/Main.java\npackage shop;\n\nclass Main {\n    private Item item;\n    double f() { return this.item.subt$0otal(); }\n}\n";
    check(
        &format!("{JAVA_SHOP}{main}"),
        expect![[r#"
        subtotal
        method Item.subtotal (src/main/java/shop/Item.java:4)
    "#]],
    );
    let main = "//- src/main/java/shop/Main.java\npackage shop;\n\nclass Main {\n    double f(java.util.List<Item> items) {\n        for (Item i : items) { i.subt$0otal(); }\n        return 0;\n    }\n}\n";
    check(
        &format!("{JAVA_SHOP}{main}"),
        expect![[r#"
        subtotal
        method Item.subtotal (src/main/java/shop/Item.java:4)
    "#]],
    );
}

/// A field access is the field its receiver's class declares.
#[test]
fn java_a_field_access_is_the_field() {
    let main = "//- src/main/java/shop/Main.java\npackage shop;\n\nclass Main {\n    private Item item;\n    double f() { return this.it$0em.subtotal(); }\n}\n";
    check(
        &format!("{JAVA_SHOP}{main}"),
        expect![[r#"
        item
        attribute item (src/main/java/shop/Main.java:4)
    "#]],
    );
}

#[test]
fn java_a_class_outside_the_repository() {
    check(
        &format!("{JAVA_SHOP}//- src/main/java/shop/Main.java\npackage shop;\n\nimport java.util.Li$0st;\n"),
        expect![[r#"
            List
            note: List is imported from java.util, which is outside the repository
        "#]],
    );
}

#[test]
fn java_references_across_packages() {
    check_refs(
        &format!(
            "{JAVA_SHOP}//- src/main/java/app/Main.java\npackage app;\n\nimport shop.Cart;\n\nclass Main {{ double f() {{ return new Cart().tot$0al(); }} }}\n"
        ),
        expect![[r#"
            src/main/java/shop/Cart.java:10 definition in Cart.total
            src/main/java/app/Main.java:5 call in Main.f
        "#]],
    );
}

#[test]
fn ts_a_monorepo_package_by_its_scoped_name() {
    let server = "//- packages/server/src/index.ts\nexport function initTRPC() {}\n//- packages/server/src/vendor/is-plain-object.ts\nexport function isPlainObject(x: unknown) { return true; }\n";
    check(
        &format!(
            "{server}//- packages/client/src/link.ts\nimport {{ initTRPC }} from '@trpc/server';\ninitT$0RPC();\n"
        ),
        expect![[r#"
            initTRPC
            function initTRPC (packages/server/src/index.ts:1)
        "#]],
    );
    check(
        &format!(
            "{server}//- packages/server/src/stream.ts\nimport {{ isPlainObject }} from '@trpc/server/vendor/is-plain-object';\nisPlain$0Object(1);\n"
        ),
        expect![[r#"
            isPlainObject
            function isPlainObject (packages/server/src/vendor/is-plain-object.ts:1)
        "#]],
    );
    // An unscoped name is a dependency even where a folder shares it.
    check(
        &format!(
            "{server}//- packages/next/src/index.ts\nexport function withTRPC() {{}}\n//- packages/client/src/app.ts\nimport {{ withTRPC }} from 'next';\nwith$0TRPC();\n"
        ),
        expect![[r#"
            withTRPC
            withTRPC imported from next (packages/client/src/app.ts:1)
        "#]],
    );
}

#[test]
fn js_destructured_bindings_bind_their_names() {
    check(
        "//- lib/a.js\nfunction run(options) {\n  const { teardown, retries: tries = 1 } = options;\n  teardown();\n  return tri$0es;\n}\n",
        expect![[r#"
            tries
            local variable tries (lib/a.js:2)
        "#]],
    );
    check(
        "//- lib/a.js\nfunction run(options) {\n  const { teardown } = options;\n  tear$0down();\n}\n",
        expect![[r#"
            teardown
            local variable teardown (lib/a.js:2)
        "#]],
    );
}

#[test]
fn js_a_function_declared_inside_a_function_expression_is_local_to_it() {
    check(
        "//- lib/runner.js\nRunner.prototype.a = function () {\n  function next() { return 1; }\n  return next();\n};\nRunner.prototype.b = function () {\n  function next() { return 2; }\n  return ne$0xt();\n};\n",
        expect![[r#"
            next
            function Runner.b.next (lib/runner.js:6)
        "#]],
    );
}

#[test]
fn go_a_second_short_declaration_assigns_the_first() {
    check(
        "//- main.go\npackage main\n\nfunc f() (int, error) { return 0, nil }\n\nfunc main() {\n\ta, err := f()\n\tb, err := f()\n\t_ = a + b\n\tprintln(er$0r)\n}\n",
        expect![[r#"
            err
            local variable err (main.go:6)
        "#]],
    );
}

#[test]
fn js_commonjs_exports_through_require() {
    check(
        "//- lib/utils.js\nexports.castArray = function (v) { return [v]; };\n//- lib/run.js\nconst utils = require('./utils');\nconst { castArray } = require('./utils');\ncastArray(utils.cast$0Array(1));\n",
        expect![[r#"
            castArray
            function castArray (lib/utils.js:1)
        "#]],
    );
}

#[test]
fn java_a_class_name_is_the_class_not_its_constructor() {
    check(
        &format!(
            "{JAVA_SHOP}//- src/main/java/shop/Main.java\npackage shop;\n\nclass Main {{\n    Main() {{}}\n    static Main make() {{ return new Ma$0in(); }}\n}}\n"
        ),
        expect![[r#"
            Main
            class Main (src/main/java/shop/Main.java:3)
        "#]],
    );
}

#[test]
fn c_a_file_scope_variable_is_its_definition() {
    check_refs(
        "//- src/count.c\nstatic int count = 0;\n\nvoid bump(void) { count++; }\nint get(void) { return cou$0nt; }\n",
        expect![[r#"
            src/count.c:1 definition in count
            src/count.c:3 reference in bump
            src/count.c:4 reference in get
        "#]],
    );
}

/// Resolution on another thread, failing instead of hanging should it wait for itself.
fn check_in_time(fixture: &'static str, expect: Expect) {
    let (done, answer) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = String::new();
        let (snapshot, path, pos) = snapshot(fixture);
        let resolver = snapshot.resolver();
        let file = resolver.file_index(&path).unwrap();
        if let Some(at) = resolver.at(file, pos) {
            out = format!("{}\n{}", at.name, render(&resolver, &at.resolution.resolved));
        }
        let _ = done.send(out);
    });
    let out = answer.recv_timeout(std::time::Duration::from_secs(20)).expect("resolution answers");
    expect.assert_eq(&out);
}

#[test]
fn an_impl_whose_type_passes_through_a_glob_of_an_enum_does_not_wait_for_itself() {
    // Building the impl map resolves `Elsewhere` in `impl Shape for Elsewhere`: the lexical
    // lookup misses, the glob `use Kind::*` asks the enum `Kind` for a member, and that asks
    // for the impl map being built.
    check_in_time(
        r#"
//- src/lib.rs
use Kind::*;
pub enum Kind { Round }
pub trait Shape { fn area(&self) -> f64; }
pub struct Circle;
impl Shape for Circle { fn area(&self) -> f64 { 1.0 } }
impl Shape for Elsewhere { fn area(&self) -> f64 { 2.0 } }
pub fn total(c: Circle) -> f64 { c.are$0a() }
"#,
        expect![[r#"
            area
            method Circle::area (src/lib.rs:5)
        "#]],
    );
}

#[test]
fn headers_that_include_each_others_includes_are_each_looked_into_once() {
    // Twelve levels of four headers, each including all four of the next: 4^12 paths to the
    // last level, where a name none of them defines is looked for.
    let mut fixture = String::new();
    for level in 0..12 {
        for h in 0..4 {
            fixture.push_str(&format!("//- l{level}_{h}.h\n"));
            if level < 11 {
                for next in 0..4 {
                    fixture.push_str(&format!("#include \"l{}_{next}.h\"\n", level + 1));
                }
            }
            fixture.push_str(&format!("int f{level}_{h}(void);\n"));
        }
    }
    fixture.push_str("//- main.c\n#include \"l0_0.h\"\nint main(void) { return miss$0ing(); }\n");
    check_in_time(Box::leak(fixture.into_boxed_str()), expect!["missing\n"]);
}

/// The graph asks for a reference's candidates only up to a few more than it uses: it gets
/// the first `most + 1` of what the whole list holds (so it can tell there are too many), and
/// the whole list when that is no longer.
#[test]
fn a_capped_candidate_list_is_the_head_of_the_whole_one() {
    let mut fixture = String::new();
    for k in 0..6 {
        fixture.push_str(&format!("//- m{k}.py\nclass C{k}:\n    def run(self):\n        pass\n"));
    }
    fixture.push_str("//- main.py\ndef go(x):\n    x.r$0un()\n");
    let (snapshot, path, _) = snapshot(&fixture);
    let resolver = snapshot.resolver();
    let file = resolver.file_index(&path).unwrap();
    let symbols = &resolver.entry(file).symbols;
    let r = symbols.refs.iter().find(|r| symbols.ref_name(r) == "run").expect("the call of run");
    let r = &r;
    let whole = resolver.resolve_ref(file, r).candidates;
    assert_eq!(whole.len(), 6, "{}", render(&resolver, &whole));
    for most in [0, 2, 4] {
        let head = resolver.resolve_ref_within(file, r, most).candidates;
        assert_eq!(head.len(), most + 1);
        assert!(head.iter().all(|t| whole.contains(t)), "{}", render(&resolver, &head));
    }
    assert_eq!(resolver.resolve_ref_within(file, r, 6).candidates, whole);
}

/// A glob search's answer is kept for the snapshot only when no search around it shaped it.
/// `d` globs `c`, whose globs search the hub `features`, which meets `c` again with `c`'s
/// second glob (`extra`) still to come: the hub's "nothing" holds only inside that search, and
/// `e` (which globs `a`, asking the hub at the same depth) must still find `Extra` through it.
/// Then a thousand generated modules that each glob their parent (web-sys's layout): each name
/// is searched through the hub once, where each reference searched every sibling (this test ran
/// past 5 minutes, stopped, before answers were kept; 0.6 s now).
#[test]
fn rs_glob_answers_are_kept_only_when_no_outer_search_shaped_them() {
    let fixture = "//- src/lib.rs\nmod features;\nmod extra;\nmod d;\nmod e;\npub use features::*;\n\
        //- src/extra.rs\npub struct Extra;\n\
        //- src/features/mod.rs\nmod a;\nmod b;\nmod c;\npub use a::*;\npub use b::*;\npub use c::*;\n\
        //- src/features/a.rs\nuse super::*;\npub fn fa() -> Extra {}\n\
        //- src/features/b.rs\nuse super::*;\npub fn fb() -> Extra {}\n\
        //- src/features/c.rs\nuse super::*;\nuse crate::extra::*;\npub fn fc() -> $0Extra {}\n\
        //- src/d.rs\nuse crate::features::c::*;\npub fn fd() -> Extra {}\n\
        //- src/e.rs\nuse crate::features::a::*;\npub fn fe() -> Extra {}\n";
    let (small, _, _) = snapshot(fixture);
    let resolver = small.resolver();
    // `pub fn fx() -> Extra {}`: the name starts at column 16.
    let extra_at = |path: &str, line: u32| {
        let file = resolver.file_index(path).unwrap();
        let at = resolver.at(file, Pos::new(line, 16)).expect("a name");
        render(&resolver, &at.resolution.resolved)
    };
    let want = "class Extra (src/extra.rs:1)\n";
    assert_eq!(extra_at("src/d.rs", 2), want);
    assert_eq!(extra_at("src/e.rs", 2), want);
    assert_eq!(extra_at("src/features/c.rs", 3), want);
    assert_eq!(extra_at("src/features/a.rs", 2), want);
    assert_eq!(extra_at("src/features/b.rs", 2), want);

    let mut fixture =
        String::from("//- src/lib.rs\nmod features;\npub use features::*;\n//- src/features/mod.rs\n");
    const N: usize = 1000;
    for i in 1..=N {
        fixture.push_str(&format!("mod gen_{i};\npub use gen_{i}::*;\n"));
    }
    for i in 1..=N {
        let (back, next) = ((i + N - 2) % N + 1, i % N + 1);
        let cursor = if i == 500 { "$0" } else { "" };
        fixture.push_str(&format!(
            "//- src/features/gen_{i}.rs\nuse super::*;\nuse outside::prelude::*;\npub struct T{i};\n\
             pub fn f{i}(a: JsValue, b: &str) -> Option<T{next}> {{\n    g(T{back}, {cursor}T{next})\n}}\n"
        ));
    }
    let (snapshot, path, pos) = snapshot(&fixture);
    let resolver = snapshot.resolver();
    let file = resolver.file_index(&path).unwrap();
    let at = resolver.at(file, pos).expect("a name at the cursor");
    assert_eq!(render(&resolver, &at.resolution.resolved), "class T501 (src/features/gen_501.rs:3)\n");
    // Each module's `T{back}` and both `T{next}` are edges, and so is the crate root's glob
    // of `features`; `JsValue`, `str`, `Option`, `g` and `outside` are bound nowhere.
    assert_eq!(snapshot.graph().n_edges(), 3 * N + 1);
}

/// A type's impls are found by its name, once for every type of that name: asked about `a`'s
/// `Config` first, `b`'s `Config` keeps its own impl (and its trait's default method); and an
/// impl written for an alias whose name no struct has is found too.
#[test]
fn rs_impls_found_by_name_serve_every_type_of_the_name() {
    let fixture = r#"
//- src/lib.rs
mod a;
mod b;
fn f(x: a::Config, y: b::Config, z: b::Engine) {
    x.only_a();
    y.only_b();
    y.describe();
    z.$0start();
}
//- src/a.rs
pub struct Config;
impl Config {
    pub fn only_a(&self) {}
}
//- src/b.rs
pub trait Describe {
    fn describe(&self) {}
}
pub struct Config;
impl Config {
    pub fn only_b(&self) {}
}
impl Describe for Config {}
pub struct Motor;
pub type Engine = Motor;
impl Engine {
    pub fn start(&self) {}
}
"#;
    let (snapshot, path, pos) = snapshot(fixture);
    let resolver = snapshot.resolver();
    let file = resolver.file_index(&path).unwrap();
    let resolved = |line: u32, column: u32| {
        let at = resolver.at(file, Pos::new(line, column)).expect("a name");
        render(&resolver, &at.resolution.resolved)
    };
    assert_eq!(resolved(4, 7), "method Config::only_a (src/a.rs:3)\n");
    assert_eq!(resolved(5, 7), "method Config::only_b (src/b.rs:6)\n");
    assert_eq!(resolved(6, 7), "method Describe::describe (src/b.rs:2)\n");
    assert_eq!(resolved(pos.line, pos.column), "method Engine::start (src/b.rs:12)\n");
}

#[test]
fn a_packed_name_table_gives_each_name_its_values_in_the_order_given() {
    let packed = |entries: &[(&str, u32)]| {
        let mut builder = super::PackedBuilder::new();
        for &(name, value) in entries {
            builder.push(name, value);
        }
        builder.finish()
    };
    let table = packed(&[("new", 3u32), ("len", 1), ("new", 1), ("", 7), ("new", 2), ("len", 0)]);
    assert_eq!(table.get("new"), &[3, 1, 2]);
    assert_eq!(table.get("len"), &[1, 0]);
    assert_eq!(table.get(""), &[7]);
    assert_eq!(table.get("ne"), &[] as &[u32]);
    assert_eq!(packed(&[]).get("new"), &[] as &[u32]);
    // Enough names that the hash index grows many times while names are added: each is still
    // found, with its values, after the table is packed.
    let names: Vec<String> = (0..5000).map(|i| format!("name{i}")).collect();
    let entries: Vec<(&str, u32)> = (0..3u32)
        .flat_map(|round| names.iter().enumerate().map(move |(i, n)| (n.as_str(), 3 * i as u32 + round)))
        .collect();
    let table = packed(&entries);
    for (i, name) in names.iter().enumerate() {
        let i = i as u32;
        assert_eq!(table.get(name), &[3 * i, 3 * i + 1, 3 * i + 2], "{name}");
    }
    assert_eq!(table.get("name5000"), &[] as &[u32]);
}

#[test]
fn a_scope_entry_gives_back_what_binds_it_and_where() {
    let (snapshot, path, _) = snapshot(
        "//- m.py
import os as system
def run(count):
    total = count
    $0return total
",
    );
    let resolver = snapshot.resolver();
    let file = resolver.file_index(&path).unwrap();
    let symbols = resolver.symbols(file);
    let ctx = resolver.ctx(file);
    let mut seen: Vec<String> = ctx
        .entries
        .iter()
        .map(|e| {
            let at = e.pos(symbols);
            let what = match e.bound() {
                Bound::Def(d) => format!("def {}", symbols.defs.at(d as usize).name()),
                Bound::Binding(b) => format!("binding {}", symbols.text(symbols.bindings[b as usize].name)),
                Bound::Import(i) => format!("import {}", symbols.text(symbols.imports[i as usize].bound)),
            };
            format!("{what} at {}:{} in scope {}", at.line, at.column, e.scope)
        })
        .collect();
    seen.sort();
    expect![[r#"
        binding count at 2:9 in scope 1
        binding total at 3:5 in scope 1
        def run at 2:1 in scope 0
        import system at 1:14 in scope 0
    "#]]
    .assert_eq(&(seen.join("\n") + "\n"));
    // 12 bytes: a workspace of 30,000 files keeps 3.6 million.
    assert_eq!(std::mem::size_of::<Entry>(), 12);
    // Packed, as 1.5 million scopes, 2.1 million bindings and 250,000 imports are kept there.
    use crate::names::{Binding, Import, Scope};
    let sizes = [std::mem::size_of::<Scope>(), std::mem::size_of::<Binding>(), std::mem::size_of::<Import>()];
    assert_eq!(sizes, [25, 21, 27]);
    for bound in [Bound::Def(0), Bound::Binding(7), Bound::Import((1 << 30) - 1)] {
        assert_eq!(Entry::new(3, 4, bound).bound(), bound);
    }
}

#[test]
fn narrow_numbers_give_back_each_number_in_16_bits_when_all_fit() {
    for numbers in [vec![0, 7, NONE, 65534], vec![0, 65535, NONE, 1 << 20]] {
        let narrow = Narrow::new(numbers.clone());
        assert_eq!((0..numbers.len()).map(|i| narrow.at(i)).collect::<Vec<_>>(), numbers);
    }
    assert!(matches!(Narrow::new(vec![1, NONE, 65534]), Narrow::Short(_)));
    // 65,535 is how 16 bits hold `NONE`.
    assert!(matches!(Narrow::new(vec![65535]), Narrow::Long(_)));
}

/// A platform module re-exported under `#[cfg(...)]`, one per platform: a public wrapper's call
/// into it resolves to the host's branch first, the others as candidates.
#[test]
fn rs_cfg_glob_reexports_resolve_every_branch_the_hosts_first() {
    check(
        r#"
//- src/lib.rs
mod sys;
pub fn home_dir() -> Option<String> {
    sys::home_$0dir()
}
//- src/sys/mod.rs
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use self::windows::*;
#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use self::unix::*;
//- src/sys/unix.rs
pub fn home_dir() -> Option<String> { None }
//- src/sys/windows.rs
pub fn home_dir() -> Option<String> { None }
"#,
        expect![[r#"
            home_dir
            function home_dir (src/sys/unix.rs:1)
            function home_dir (src/sys/windows.rs:1)
        "#]],
    );
}

/// A Go struct's field says what `s.shape` holds: the method called on it is that type's, and
/// the field access is the field.
#[test]
fn go_method_call_through_a_typed_field() {
    let shapes = "//- a.go\npackage m\n\ntype Circle struct{}\n\nfunc (c *Circle) Area() float64 { return 1 }\n\ntype Square struct{}\n\nfunc (s *Square) Area() float64 { return 2 }\n\ntype Scene struct {\n\tshape *Circle\n}\n\n";
    check(
        &format!("{shapes}func (s *Scene) F() float64 {{ return s.shape.Ar$0ea() }}\n"),
        expect![[r#"
            Area
            method Circle.Area (a.go:5)
        "#]],
    );
    // A field named as its type: the type in the struct's body is the type, not the field.
    check(
        "//- a.go\npackage m\n\ntype Owner struct{}\n\ntype Cart struct {\n\tOwner Own$0er\n}\n",
        expect![[r#"
            Owner
            class Owner (a.go:3)
        "#]],
    );
    check(
        &format!("{shapes}func (s *Scene) F() float64 {{ return s.sha$0pe.Area() }}\n"),
        expect![[r#"
        shape
        field shape (a.go:12)
    "#]],
    );
}

/// A TypeScript class's typed property says what `this.shape` holds.
#[test]
fn ts_method_call_through_a_typed_property() {
    check(
        "//- a.ts\nclass Circle { area(): number { return 1 } }\nclass Square { area(): number { return 2 } }\nclass Scene {\n  shape: Circle\n  constructor(s: Circle) { this.shape = s }\n  f(): number { return this.shape.ar$0ea() }\n}\n",
        expect![[r#"
            area
            method Circle.area (a.ts:1)
        "#]],
    );
}
