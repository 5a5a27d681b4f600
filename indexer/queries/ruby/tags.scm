; Definitions and references.
(class name: (constant) @name) @definition.class
