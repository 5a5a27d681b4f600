; Definitions: functions (`f() { … }` and `function f { … }`), and the constants a file's own
; statements declare read-only (`readonly X=1`, `declare -r X=1`).
(function_definition
  name: (word) @name) @definition.function

((declaration_command
  (variable_assignment
    name: (variable_name) @name)) @definition.constant
  (#match? @definition.constant "^(readonly|declare[ \t]+-[a-zA-Z]*r|typeset[ \t]+-[a-zA-Z]*r)")
  (#top-level? @definition.constant))

; References: a command whose name is a plain word calls the function of that name (builtins
; and everyday commands are noise, see the spec); a variable's name wherever it is read or set.
(command
  name: (command_name
    (word) @name @reference.call))

(variable_name) @name @reference.name
