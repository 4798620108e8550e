import { Command, Option } from 'commander';

/** `--model`, `--workspace`, `--dir`, `--session`, `--raw`: shared by `run`, `chat` and `chain`. */
export function withTargetOptions(command: Command): Command {
  return command
    .option('-m, --model <id>', 'model for a new session (default: the first of `weft models`)')
    .addOption(new Option('-w, --workspace <id>', 'start the session on this existing workspace').conflicts(['dir', 'session']))
    .addOption(new Option('-d, --dir <path>', "this folder's workspace: the one it was uploaded to, sent only what changed, or a new upload (default: the current folder)").conflicts('session'))
    .addOption(new Option('--new-workspace', 'upload the folder as a new workspace even if it has one').conflicts(['workspace', 'session']))
    .addOption(
      new Option('--discard-unapplied', "let the folder's version replace changes in its workspace that were never applied here (asked on a terminal; kept, in a new upload, elsewhere)")
        .conflicts(['workspace', 'session', 'newWorkspace']),
    )
    .addOption(new Option('-s, --session <id>', 'continue this session instead of starting one').conflicts('model'))
    .addOption(new Option('--image <name>', "the sandbox image a new session's commands run in, from the server's catalogue (GET /v1/sandbox/images)").conflicts('session'))
    .option('--raw', "print the agent's answers as written, without rendering their Markdown (always so where stdout is not a terminal)");
}
