; Definitions. Methods come out as functions; the extractor names them methods when a class
; encloses them.
(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

; `(#top-level? @x)`: `x` begins a statement of the file itself, not of a block. (Cheaper
; than rooting the pattern at `module`, which keeps a match open across the whole file.)
((expression_statement
  (assignment
    left: (identifier) @name) @definition.constant)
  (#top-level? @definition.constant))

; References, most specific first. One identifier can match several patterns; the extractor
; keeps the most specific kind: call, method call, inheritance, type, attribute, then any
; other name.
(call
  function: (identifier) @name @reference.call)

(call
  function: (attribute
    attribute: (identifier) @name @reference.method))

(class_definition
  superclasses: (argument_list
    (identifier) @name @reference.inheritance))

(class_definition
  superclasses: (argument_list
    (attribute
      attribute: (identifier) @name @reference.inheritance)))

(type
  (identifier) @name @reference.type)

(attribute
  attribute: (identifier) @name @reference.attribute)

(identifier) @name @reference.name
