import { EXIT } from '../exit-codes.js';
import { GLOBAL_OPTIONS } from '../global-options.js';
import { single, UsageError, type Verb } from '../verb.js';

/** The verbs and their long options, as a completion script needs them. */
export interface CompletionSpec {
  readonly verbs: readonly { readonly name: string; readonly summary: string; readonly options: readonly string[] }[];
}

const globalOptionNames = Object.keys(GLOBAL_OPTIONS);

/** bash: `source <(openpaw completion bash)`. */
export function bashCompletion(spec: CompletionSpec): string {
  const cases = spec.verbs.map((v) => `    ${v.name}) opts="${[...v.options, ...globalOptionNames].map((o) => `--${o}`).join(' ')}" ;;`).join('\n');
  return `# openpaw bash completion: source <(openpaw completion bash)
_openpaw() {
  local cur verb opts
  cur="\${COMP_WORDS[COMP_CWORD]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${spec.verbs.map((v) => v.name).join(' ')} --version --help" -- "$cur"))
    return
  fi
  verb="\${COMP_WORDS[1]}"
  case "$verb" in
${cases}
    *) opts="" ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _openpaw openpaw
`;
}

/** zsh: `source <(openpaw completion zsh)` (zsh's own bash-completion bridge runs the bash function). */
export function zshCompletion(spec: CompletionSpec): string {
  return `# openpaw zsh completion: source <(openpaw completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(spec)}`;
}

/** fish: `openpaw completion fish | source`. */
export function fishCompletion(spec: CompletionSpec): string {
  const quote = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  const lines = ['# openpaw fish completion: openpaw completion fish | source', 'complete -c openpaw -f'];
  for (const verb of spec.verbs) lines.push(`complete -c openpaw -n __fish_use_subcommand -a ${verb.name} -d ${quote(verb.summary)}`);
  for (const verb of spec.verbs) {
    for (const option of [...verb.options, ...globalOptionNames]) lines.push(`complete -c openpaw -n '__fish_seen_subcommand_from ${verb.name}' -l ${option}`);
  }
  return `${lines.join('\n')}\n`;
}

const SHELLS = { bash: bashCompletion, zsh: zshCompletion, fish: fishCompletion } as const;

/** `openpaw completion <shell>`: built from the verb registry, so a new verb completes without more work. */
export function completionVerb(spec: () => CompletionSpec): Verb {
  return {
    name: 'completion',
    summary: 'print the shell completion script (bash, zsh or fish)',
    usage: ['bash | zsh | fish'],
    options: {},
    needsApi: false,
    run({ args, io }) {
      const shell = single(args, 'completion bash | zsh | fish');
      if (!(shell in SHELLS)) throw new UsageError(`openpaw completion: bash, zsh or fish, not "${shell}"`);
      // The script itself, on stdout even under --json (it is meant for `source`).
      io.stdout(SHELLS[shell as keyof typeof SHELLS](spec()).trimEnd());
      return Promise.resolve({ exitCode: EXIT.succeeded });
    },
  };
}
