; What name resolution needs besides definitions and references: scopes, the names each scope
; binds, what stands before a name, and the module directives (`alias`, `import`, `require`,
; `use`), each an import.

; Scopes. A module's `do` block sees its functions everywhere in it; a function's clause its
; parameters; a clause of `fn`, `case`, `receive` or `with` (a stab clause) its own patterns.
((call
  target: (identifier) @_m
  (do_block) @scope)
  (#eq? @_m "defmodule"))
((call target: (identifier) @_d) @scope
  (#match? @_d "^(defp?|defmacrop?|defguardp?)$"))
(stab_clause) @scope
; A block of a macro that takes one (`test "…" do`, `if`, `for`): what it binds stays in it.
((call target: (identifier) @_b (do_block)) @scope
  (#match? @_b "^(test|describe|setup|setup_all|if|unless|case|cond|for|with|receive|try|quote)$"))

; Parameters: a clause's patterns, guarded or not; a stab clause's patterns.
((call
  target: (identifier) @_d
  (arguments (call (arguments (_) @local.param))))
  (#match? @_d "^(defp?|defmacrop?)$"))
((call
  target: (identifier) @_d
  (arguments
    (binary_operator
      left: (call (arguments (_) @local.param)))))
  (#match? @_d "^(defp?|defmacrop?)$"))
(stab_clause left: (arguments (_) @local.param))

; Matches: `x = …`, and the generators of `for` and `with` (`x <- …`).
; tack's matcher sees no operator token, so the operator is read from the text: the first `=`
; standing alone, or `<-`.
((binary_operator left: (_) @local.assign) @_match
  (#match? @_match "^[^=]*\\s=\\s"))
((binary_operator left: (_) @local.loop) @_generator
  (#match? @_generator "^[^<]*\\s<-\\s"))

; What stands before a name: the module or variable of `Pricing.apply_discount(x)`.
(call target: (dot left: (_) @qualifier right: (identifier) @qualified))

; Module directives.
((call target: (identifier) @_dir (arguments)) @import
  (#match? @_dir "^(alias|import|require|use)$"))
