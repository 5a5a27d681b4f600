; Definitions and references.
(function name: (variable) @name) @definition.function
