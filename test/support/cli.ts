import { main } from '../../src/main/cli/main'
import type { CliIo } from '../../src/main/cli/io'
import { terminalSafe } from '../../src/shared/inert'
import { redact } from '../../src/main/log'

export interface CliAnswer {
  code: number
  stdout: string
  stderr: string
}

/** `watchdesk <args>` through the command line's own main() in this process: the same parsing,
 * commands, exit codes and lines as bin/watchdesk piped (each line redacted and made
 * terminal-safe as processIo does), without starting a Node process for it (about 0.4 s of CPU
 * each on the test machine). Use runCli (./serve-process.ts), the real process, when the test is
 * about the process: stdin, signals, a terminal, a closed pipe, start-up, or an environment that
 * a native library reads itself (D-Bus, HOME, TZ) rather than the command's env. */
export async function runMain(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliAnswer> {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    out: (line) => void (stdout += terminalSafe(redact(line)) + '\n'),
    err: (line) => void (stderr += terminalSafe(redact(line)) + '\n'),
    env,
    isTTY: false,
    errIsTTY: false,
  }
  const exitCodeBefore = process.exitCode
  const code = await main(args, io)
  // A command answers with its code; only the entry (src/main/cli.ts) touches the process's exit
  // (serve's failures once also armed a process.exit 2 s later, which ended another test file).
  if (process.exitCode !== exitCodeBefore)
    throw new Error(`main(${JSON.stringify(args)}) set process.exitCode; only src/main/cli.ts may`)
  return { code, stdout, stderr }
}
