; Definitions and references.
(function_declaration name: (identifier) @name) @definition.function
