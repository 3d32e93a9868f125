import packageJson from '../../package.json' with { type: 'json' };
import { parseCommandLine } from './args.js';
import { meCommand } from './commands/me.js';
import { recordCommand } from './commands/records.js';
import { sandboxCommand } from './commands/sandbox.js';
import { tokenCommand } from './commands/token.js';
import { watchCommand } from './commands/watch.js';
import { webhookCommand } from './commands/webhook.js';
import { ExitCode, usage, type ExitCodeValue } from './exit-codes.js';
import { HELP, type HelpTopic } from './help.js';
import type { CliIo } from './io.js';
import { report } from './report.js';

const COMMANDS = ['me', 'order', 'withdrawal', 'watch', 'token', 'webhook', 'sandbox'] as const;
type Command = (typeof COMMANDS)[number];

/** Runs one command line; resolves with the exit code. Errors are reported on stderr, never thrown. */
export async function main(argv: readonly string[], io: CliIo): Promise<ExitCodeValue> {
  try {
    const args = parseCommandLine(argv);
    const command = args.positionals[0];
    if (command === undefined) {
      if (args.options.version) {
        io.out(`${packageJson.version}\n`);
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
      io.out(isCommand(topic) ? HELP[topic as HelpTopic] : HELP.global);
      return ExitCode.Ok;
    }
    if (!isCommand(command)) throw usage(`unknown command "${command}"`);
    if (args.options.help) {
      io.out(HELP[command]);
      return ExitCode.Ok;
    }
    if (args.options.version) throw usage('--version takes no command', command);
    switch (command) {
      case 'me':
        return await meCommand(args, io);
      case 'order':
      case 'withdrawal':
        return await recordCommand(command, args, io);
      case 'watch':
        return await watchCommand(args, io);
      case 'token':
        return await tokenCommand(args, io);
      case 'webhook':
        return await webhookCommand(args, io);
      case 'sandbox':
        return await sandboxCommand(args, io);
    }
  } catch (error) {
    const { message, exitCode } = report(error);
    io.err(`checkout-partner: ${message}\n`);
    return exitCode;
  }
}

function isCommand(value: string | undefined): value is Command {
  return COMMANDS.includes(value as Command);
}
