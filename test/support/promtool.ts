import { spawnSync } from 'node:child_process'

/** `promtool check metrics` (Debian's prometheus package) on a scrape: its lint of names, types,
 * units and help. Returns what it reported ('' when the text is clean) and its exit code. */
export function promtoolCheckMetrics(text: string): { code: number; problems: string } {
  const result = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })
  if (result.error)
    throw new Error(`promtool cannot run (apt-get install prometheus): ${result.error.message}`)
  return { code: result.status ?? -1, problems: `${result.stdout}${result.stderr}`.trim() }
}
