; Definitions and references.
(function_definition name: (identifier) @name) @definition.function
