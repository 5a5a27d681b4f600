; JavaScript's own definitions and references; `queries/ecma/tags.scm` has the shared ones.
(class_declaration
  name: (identifier) @name) @definition.class

(class_heritage
  (identifier) @name @reference.inheritance)
