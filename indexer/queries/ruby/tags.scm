; Definitions. Nested classes and modules are qualified by those around them (`Shop::Cart`);
; `class Shop::Cart` names its container in its own name. A `def` in a class or module body is
; a method (the extractor decides), `def self.create` a method of the class.
(class
  name: (constant) @name) @definition.class

(class
  name: (scope_resolution
    name: (constant) @name)) @definition.class

(module
  name: (constant) @name) @definition.module

(module
  name: (scope_resolution
    name: (constant) @name)) @definition.module

(method
  name: (_) @name) @definition.method

(singleton_method
  name: (_) @name) @definition.method

(assignment
  left: (constant) @name) @definition.constant

; References, most specific first: a mixin (`include Taxable`, `extend`, `prepend`) and a
; superclass are bases of the class around them; then method calls through a receiver, bare
; calls, constants and any other name.
((call
  !receiver
  method: (identifier) @_mixin
  arguments: (argument_list
    (constant) @name @reference.inheritance))
  (#match? @_mixin "^(include|extend|prepend)$"))

((call
  !receiver
  method: (identifier) @_mixin
  arguments: (argument_list
    (scope_resolution
      name: (constant) @name @reference.inheritance)))
  (#match? @_mixin "^(include|extend|prepend)$"))

(superclass
  (constant) @name @reference.inheritance)

(superclass
  (scope_resolution
    name: (constant) @name @reference.inheritance))

(call
  receiver: (_)
  method: (identifier) @name @reference.method)

(call
  !receiver
  method: (identifier) @name @reference.call)

(constant) @name @reference.name

(identifier) @name @reference.name
