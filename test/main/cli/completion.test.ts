import { execFileSync, spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'

/** `watchdesk completion bash|zsh|fish`: the script printed by the built CLI, loaded into the real
 * shell, asked for candidates the way the shell asks when TAB is pressed. */
describe('shell completion scripts', () => {
  const tempDir = useTempDir('watchdesk-completion-')

  async function scriptFor(shell: string): Promise<string> {
    const { code, stdout, stderr } = await runCli(['completion', shell])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const file = join(tempDir(), `watchdesk.${shell}`)
    writeFileSync(file, stdout)
    return file
  }

  /** COMP_WORDS/COMP_CWORD as bash sets them for the line typed so far, then the function. */
  function bashCandidates(script: string, line: string): string[] {
    const words = line.split(' ')
    const out = execFileSync(
      'bash',
      [
        '-c',
        `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _watchdesk_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
        'bash',
        script,
        ...words,
      ],
      { encoding: 'utf8' },
    )
    return out.split('\n').filter(Boolean)
  }

  it('bash: commands, flags and event types from the command tree', async () => {
    const script = await scriptFor('bash')
    expect(bashCandidates(script, 'watchdesk ev')).toEqual(['events'])
    expect(bashCandidates(script, 'watchdesk events --ty')).toEqual(['--type'])
    expect(bashCandidates(script, 'watchdesk events --type fund')).toEqual([
      'funding.initiated',
      'funding.completed',
      'funding.failed',
    ])
    // --type takes several; a flag after its values is completed as a flag again.
    expect(bashCandidates(script, 'watchdesk events --type funding.completed --li')).toEqual(['--limit'])
    expect(bashCandidates(script, 'watchdesk send-test-event payout.c')).toEqual(['payout.completed'])
    expect(bashCandidates(script, 'watchdesk relay token ')).toEqual(['create', 'list', 'revoke'])
    expect(bashCandidates(script, 'watchdesk completion ')).toEqual(['bash', 'zsh', 'fish'])
    expect(bashCandidates(script, 'watchdesk nothing-like-this ')).toEqual([])
  })

  it('zsh: the same candidates through its bash-compatible layer', async () => {
    const script = await scriptFor('zsh')
    const out = execFileSync(
      'zsh',
      [
        '-c',
        `source "$1"; COMP_WORDS=(watchdesk events --type fund); COMP_CWORD=3; _watchdesk_zsh; print -l -- "\${COMPREPLY[@]}"`,
        'zsh',
        script,
      ],
      { encoding: 'utf8', env: { ...process.env, HOME: tempDir() } },
    )
    // zsh filters by the typed prefix itself; the function hands it the option's values.
    expect(out.split('\n')).toEqual(expect.arrayContaining(['funding.completed', 'payout.failed']))
  })

  it('fish: native completions with descriptions', async () => {
    const script = await scriptFor('fish')
    const complete = (line: string) =>
      spawnSync('fish', ['--no-config', '-c', `source $argv[1]; complete -C "${line}"`, script], {
        encoding: 'utf8',
      })
        .stdout.split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0])
    expect(complete('watchdesk ev')).toEqual(['events'])
    expect(complete('watchdesk events --ty')).toEqual(['--type'])
    expect(complete('watchdesk events --type fund').sort()).toEqual([
      'funding.completed',
      'funding.failed',
      'funding.initiated',
    ])
  })

  it('refuses a shell it has no script for, as a usage error', async () => {
    const { code, stderr } = await runCli(['completion', 'powershell'])
    expect(code).toBe(2)
    expect(stderr).toContain('bash, zsh, fish')
  })
})
