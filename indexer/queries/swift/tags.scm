; Definitions and references.
(class_declaration name: (type_identifier) @name) @definition.class
