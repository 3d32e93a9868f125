// the named import lets esbuild inline `version` alone, not the whole package.json
import { version } from '../../package.json';
import { parseCommandLine } from './args.js';
import { meCommand } from './commands/me.js';
import { recordCommand } from './commands/records.js';
import { sandboxCommand } from './commands/sandbox.js';
import { tokenCommand } from './commands/token.js';
import { watchCommand } from './commands/watch.js';
import { webhookCommand } from './commands/webhook.js';
import { AttemptTally } from './attempt-tally.js';
import { escapeJsonOutput, escapeOutput } from './escape.js';
import { ExitCode, usage, type ExitCodeValue } from './exit-codes.js';
import { HELP, type HelpTopic } from './help.js';
import type { CliIo } from './io.js';
import { report } from './report.js';
import { isStatusKind, STATUS_KINDS } from '../kinds.js';

/** The commands: one per record kind (the kinds table's `command`) and the others. */
const COMMANDS: readonly Command[] = ['me', ...STATUS_KINDS, 'record', 'watch', 'token', 'webhook', 'sandbox'];
type Command = Exclude<HelpTopic, 'global'>;

/** Runs one command line; resolves with the exit code. Errors are reported on stderr, never thrown. */
export async function main(argv: readonly string[], rawIo: CliIo): Promise<ExitCodeValue> {
  const tally = new AttemptTally();
  // the last line of defence: whatever a command writes, only the CLI's own newlines reach the
  // terminal raw (values are escaped where they are put into a line, newlines included)
  let json = false;
  const io: CliIo = {
    ...rawIo,
    out: (text) => rawIo.out(json ? escapeJsonOutput(text) : escapeOutput(text)),
    err: (text) => rawIo.err(escapeOutput(text)),
  };
  try {
    const args = parseCommandLine(argv);
    json = args.options.json === true;
    const command = args.positionals[0];
    if (command === undefined) {
      if (args.options.version) {
        io.out(`${version}\n`);
        return ExitCode.Ok;
      }
      if (args.options.help) {
        io.out(HELP.global);
        return ExitCode.Ok;
      }
      throw usage('missing command');
    }
    if (command === 'help') {
      const topic = args.positionals[1];
      io.out(isCommand(topic) ? HELP[topic] : HELP.global);
      return ExitCode.Ok;
    }
    if (!isCommand(command)) throw usage(`unknown command "${command}"`);
    if (args.options.help) {
      io.out(HELP[command]);
      return ExitCode.Ok;
    }
    if (args.options.version) throw usage('--version takes no command', command);
    if (isStatusKind(command)) return await recordCommand(command, args, io, tally);
    switch (command) {
      case 'record':
        return await recordCommand(command, args, io, tally);
      case 'me':
        return await meCommand(args, io, tally);
      case 'watch':
        return await watchCommand(args, io, tally);
      case 'token':
        return await tokenCommand(args, io, tally);
      case 'webhook':
        return await webhookCommand(args, io, tally);
      case 'sandbox':
        return await sandboxCommand(args, io);
    }
  } catch (error) {
    const { message, exitCode } = report(error, tally);
    io.err(`checkout-partner: ${message}\n`);
    return exitCode;
  }
}

function isCommand(value: string | undefined): value is Command {
  return COMMANDS.includes(value as Command);
}
