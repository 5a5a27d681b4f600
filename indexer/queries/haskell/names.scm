; What name resolution needs besides definitions and references: scopes, the names each scope
; binds, what stands before a name, and the imports.

; Scopes: an equation (its parameters and `where` bindings), a binding with a `where`, a
; lambda, a case alternative, a `do` block and a `let … in`.
(declarations (function) @scope)
(class_declarations (function) @scope)
(instance_declarations (function) @scope)
(declarations (bind) @scope)
(lambda) @scope
(alternative) @scope
(do) @scope
(let_in) @scope
(list_comprehension) @scope

; Parameters: an equation's and a lambda's patterns, a case alternative's pattern.
(function patterns: (patterns (_) @local.param))
(lambda patterns: (patterns (_) @local.param))
(alternative pattern: (_) @local.param)

; Locals: `where` and `let` bindings (mutually recursive: the whole scope sees them), a `do`
; block's `x <- …` and a comprehension's generators. A local function makes no scope of its
; own (its name is bound where it stands): its parameters are bound in the scope around it.
(local_binds decl: (function name: (variable) @local.let))
(local_binds decl: (bind name: (variable) @local.let))
(do statement: (bind pattern: (_) @local.let))
(generator pattern: (_) @local.loop)

; What stands before a name: the module of `P.applyDiscount` and of an import list's names.
(qualified module: (module) @qualifier id: (_) @qualified)
(import
  module: (module) @qualifier
  names: (import_list name: (import_name [(variable) (name)] @qualified)))

; Imports, and the export list of the module's header.
(import) @import
(header exports: (exports) @exports)
