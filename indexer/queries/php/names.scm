; What name resolution needs besides definitions and references: scopes, the variables each
; binds (named with their `$`, with their declared type or `new` class as a hint), the file's
; namespace and `use` imports, and what stands before a member's name.

; Scopes. A type's body sees its members everywhere in it; a function does not see the
; variables around it (an arrow function does).
(class_declaration) @scope
(trait_declaration) @scope
(interface_declaration) @scope
(enum_declaration) @scope
(method_declaration) @scope
(function_definition) @scope
(anonymous_function) @scope
(arrow_function) @scope

; Parameters, with their type as a hint.
(simple_parameter name: (variable_name) @local.param)
(simple_parameter type: (_) @local.hint name: (variable_name) @local.param)
(variadic_parameter name: (variable_name) @local.param)
(property_promotion_parameter name: (variable_name) @local.param)
(property_promotion_parameter type: (_) @local.hint name: (variable_name) @local.param)
(anonymous_function_use_clause (variable_name) @local.param)

; Assignments: `$cart = new Cart(…)` hints an instance of `Cart`, `$b = $a` another name.
(assignment_expression left: (variable_name) @local.assign)
(assignment_expression
  left: (variable_name) @local.assign
  right: (object_creation_expression (name) @local.hint.call))
(assignment_expression left: (variable_name) @local.assign right: (variable_name) @local.hint.alias)
(foreach_statement (_) (variable_name) @local.loop)
(foreach_statement (_) (pair) @local.loop)

; `namespace App\Shop;` (the namespace's names are the file's) and `use App\Shop\Cart;`.
(namespace_definition) @import
(namespace_use_declaration) @import

; What stands before a name: the object of `$x->m()`, the class of `Cart::create()`.
(member_call_expression object: (_) @qualifier name: (name) @qualified)
(nullsafe_member_call_expression object: (_) @qualifier name: (name) @qualified)
(member_access_expression object: (_) @qualifier name: (name) @qualified)
(nullsafe_member_access_expression object: (_) @qualifier name: (name) @qualified)
(scoped_call_expression scope: (_) @qualifier name: (name) @qualified)
(class_constant_access_expression (_) @qualifier (name) @qualified)
(qualified_name prefix: (_) @qualifier (name) @qualified)
