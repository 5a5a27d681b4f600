; What name resolution needs besides definitions and references: scopes, the names each scope
; binds (a parameter's or a variable's annotation, `Cart.init()`'s result, a `Cart{ … }` and
; another name as hints), what stands before a name, and what a file imports. An annotation is
; hinted as another name for its type (`self: *Cart` holds what `Cart` does): a value reaches its
; type's declarations as the type does (`c.total()` is `Cart.total(c)`), and a file that is a
; struct (`Thread.zig`, `const Thread = @This()`) is a file, not a type's definition.

; Scopes. A container (`struct`, `enum`, `union`, `opaque`; a file is one too) sees its
; declarations everywhere in it; a block sees the locals before their use.
(function_declaration) @scope
(test_declaration) @scope
(struct_declaration) @scope
(enum_declaration) @scope
(union_declaration) @scope
(opaque_declaration) @scope
(block) @scope
(for_statement) @scope
(while_statement) @scope
(if_statement) @scope
(for_expression) @scope
(while_expression) @scope
(if_expression) @scope
(else_clause) @scope
(switch_case) @scope
(catch_expression) @scope

; Parameters, with their annotation (`self: *Cart` is a `Cart`).
(parameter
  name: (identifier) @local.param)
(parameter
  name: (identifier) @local.param
  type: (_) @local.hint.alias)

; A struct's or union's fields, with their type (`self.items`): bound in its body (a file's
; own fields, where the file is a struct, in the file).
(struct_declaration
  (container_field
    name: (identifier) @local.let))
(struct_declaration
  (container_field
    name: (identifier) @local.let
    type: (_) @local.hint.alias))
(union_declaration
  (container_field
    name: (identifier) @local.let))
(source_file
  (container_field
    name: (identifier) @local.let))
(source_file
  (container_field
    name: (identifier) @local.let
    type: (_) @local.hint.alias))

; Locals: `const`/`var` in a block (the grammar reads `x = …` and `x += …` the same way: an
; assignment binds anew). Typed: the annotation is the hint; untyped: `Cart.init()`'s result,
; `Cart{ … }`, or another name.
(block
  (variable_declaration
    (identifier) @local.let
    type: (_) @local.hint.alias))
(block
  (variable_declaration
    !type
    (identifier) @local.let
    (_)))
(block
  (variable_declaration
    !type
    (identifier) @local.let
    (call_expression
      function: [(identifier) (field_expression)] @local.hint.call)))
(block
  (variable_declaration
    !type
    (identifier) @local.let
    (struct_initializer
      [(identifier) (field_expression)] @local.hint.alias)))
(block
  (variable_declaration
    !type
    (identifier) @local.let
    (try_expression
      (call_expression
        function: [(identifier) (field_expression)] @local.hint.call))))
(block
  (variable_declaration
    !type
    (identifier) @local.let
    (identifier) @local.hint.alias))

; `|x|`, `|x, i|`, `|err|`: the payloads of `for`, `while`, `if`, `switch` and `catch`. What a
; `for` walks, a `while`'s or an `if`'s condition is the payload's hint: an element of
; `items: []Item` is read as `items` is, an `Item` (the hint of a slice or an array is its
; element's type).
(payload
  (identifier) @local.loop)
(for_statement
  [(identifier) (field_expression)] @local.hint.alias
  (payload
    (identifier) @local.loop))
(for_statement
  (index_expression
    object: [(identifier) (field_expression)] @local.hint.alias)
  (payload
    (identifier) @local.loop))
(while_statement
  condition: [(identifier) (field_expression) (call_expression)] @local.hint.alias
  (payload
    (identifier) @local.loop))
(if_statement
  condition: [(identifier) (field_expression) (call_expression)] @local.hint.alias
  (payload
    (identifier) @local.loop))
(if_expression
  condition: [(identifier) (field_expression) (call_expression)] @local.hint.alias
  (payload
    (identifier) @local.loop))

; What stands before a name: the object of `a.b`.
(field_expression
  object: (_) @qualifier
  member: (identifier) @qualified)

; Imports: `const pricing = @import("pricing.zig");`, `const Cart = @import("cart.zig").Cart;`
; and `usingnamespace @import("x.zig");` (every public name of `x.zig`).
((variable_declaration
  (identifier)
  (builtin_function
    (builtin_identifier) @_import)) @import
  (#eq? @_import "@import"))
((variable_declaration
  (identifier)
  (field_expression
    object: (builtin_function
      (builtin_identifier) @_import))) @import
  (#eq? @_import "@import"))
((variable_declaration
  (identifier)
  (field_expression
    object: (field_expression
      object: (builtin_function
        (builtin_identifier) @_import)))) @import
  (#eq? @_import "@import"))
((using_namespace_declaration
  (builtin_function
    (builtin_identifier) @_import)) @import
  (#eq? @_import "@import"))
