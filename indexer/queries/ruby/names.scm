; What name resolution needs besides definitions and references: scopes, the names each scope
; binds (`x = Cart.new` hints an instance of `Cart`), what stands before a name, and what a
; file loads. `require` binds no name: every file sees the repository's constants.

; Scopes. A class or module body sees its methods and constants everywhere in it; a block sees
; the locals around it.
(class) @scope
(module) @scope
(singleton_class) @scope
(method) @scope
(singleton_method) @scope
(block) @scope
(do_block) @scope
(lambda) @scope

; Parameters of methods, blocks and lambdas.
(method_parameters (identifier) @local.param)
(lambda_parameters (identifier) @local.param)
(block_parameters (identifier) @local.param)
(block_parameters (destructured_parameter) @local.param)
(method_parameters (destructured_parameter) @local.param)
(optional_parameter name: (identifier) @local.param)
(keyword_parameter name: (identifier) @local.param)
(splat_parameter name: (identifier) @local.param)
(hash_splat_parameter name: (identifier) @local.param)
(block_parameter name: (identifier) @local.param)

; Assignments: `x = Cart.new(…)` and `x = Shop::Cart.new` make `x` an instance of the class.
(assignment left: (identifier) @local.assign)
(assignment left: (left_assignment_list) @local.assign)
((assignment
  left: (identifier) @local.assign
  right: (call
    receiver: [(constant) (scope_resolution)] @local.hint.call
    method: (identifier) @_new))
  (#eq? @_new "new"))
(assignment left: (identifier) @local.assign right: (identifier) @local.hint.alias)
(operator_assignment left: (identifier) @local.assign)
(for pattern: (_) @local.loop)

; What stands before a name: the receiver of `x.m`, the scope of `Shop::Cart`.
(call receiver: (_) @qualifier method: (identifier) @qualified)
(scope_resolution scope: (_) @qualifier name: (constant) @qualified)

; Loads: `require "shop/cart"` and `require_relative "cart"` (the shared scope prefers what a
; file loads where several files define a name).
((call
  method: (identifier) @_load
  arguments: (argument_list (string))) @import
  (#match? @_load "^require(_relative)?$"))
