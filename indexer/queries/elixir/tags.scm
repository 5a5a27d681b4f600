; Definitions and references.
((call target: (identifier) @_def (arguments (call target: (identifier) @name))) @definition.function
  (#match? @_def "^defp?$"))
