; Definitions and references.
(class_declaration name: (identifier) @name) @definition.class
