; Definitions and references.
(class_declaration name: (name) @name) @definition.class
