; JavaScript's parameters; `queries/ecma/names.scm` has the rest of what resolution needs.
(formal_parameters (identifier) @local.param)
(formal_parameters (assignment_pattern left: (_) @local.param))
(formal_parameters (object_pattern) @local.param)
