; Definitions and references.
(function_definition name: (word) @name) @definition.function
