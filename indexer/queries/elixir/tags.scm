; Definitions. `defmodule Shop.Cart` is the module `Cart` in `Shop` (the extractor cuts the
; path); nested modules are qualified by those around them. `def`, `defp` and `defdelegate`
; make a function, named with or without parentheses and with or without a guard (the clauses of
; one arity are one definition: the language decides); `defmacro`/`defmacrop`/`defguard` a
; macro; `defprotocol` an interface; `@type t :: …` a type; a module attribute holding a number
; (`@max 10`) a constant.
((call
  target: (identifier) @_m
  (arguments (alias) @name)) @definition.module
  (#eq? @_m "defmodule"))

((call
  target: (identifier) @_m
  (arguments (alias) @name)) @definition.interface
  (#eq? @_m "defprotocol"))

((call
  target: (identifier) @_d
  (arguments (call target: (identifier) @name))) @definition.function
  (#match? @_d "^(defp?|defdelegate)$"))

((call
  target: (identifier) @_d
  (arguments (identifier) @name)) @definition.function
  (#match? @_d "^(defp?|defdelegate)$"))

((call
  target: (identifier) @_d
  (arguments
    (binary_operator
      left: (call target: (identifier) @name)))) @definition.function
  (#match? @_d "^(defp?|defdelegate)$"))

((call
  target: (identifier) @_d
  (arguments (call target: (identifier) @name))) @definition.macro
  (#match? @_d "^(defmacrop?|defguardp?)$"))

((call
  target: (identifier) @_d
  (arguments (identifier) @name)) @definition.macro
  (#match? @_d "^(defmacrop?|defguardp?)$"))

((call
  target: (identifier) @_d
  (arguments
    (binary_operator
      left: (call target: (identifier) @name)))) @definition.macro
  (#match? @_d "^(defmacrop?|defguardp?)$"))

((unary_operator
  operand: (call
    target: (identifier) @_t
    (arguments
      (binary_operator
        left: (identifier) @name)))) @definition.type
  (#match? @_t "^(type|typep|opaque)$"))

((unary_operator
  operand: (call
    target: (identifier) @_t
    (arguments
      (binary_operator
        left: (call target: (identifier) @name))))) @definition.type
  (#match? @_t "^(type|typep|opaque)$"))

((unary_operator
  operand: (call
    target: (identifier) @name
    (arguments [(integer) (float)]))) @definition.constant
  (#match? @definition.constant "^@"))

; References: a remote call (`Pricing.apply_discount(x)`, `__MODULE__.total(c)`) with its
; module as qualifier, a field read (`cart.items`), a local or imported call (`helper(x)`, the
; right of a pipe), and module names (`Shop.Cart`, `%Cart{}`, an alias). Keywords of the
; language that parse as calls (`def`, `if`, `alias`) are noise.
(call
  target: (dot
    right: (identifier) @name @reference.call)
  (arguments))

(call
  target: (dot
    left: (identifier)
    right: (identifier) @name @reference.attribute))

(call
  target: (dot
    left: [(alias) (dot)]
    right: (identifier) @name @reference.call))

(call
  target: (identifier) @name @reference.call)

(alias) @name @reference.name

(identifier) @name @reference.name
