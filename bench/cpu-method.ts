/** How the benches measure what an operator pays: server CPU per accepted delivery at a fixed
 * offered rate, paired with a bare node:http server in alternating rounds of the same run, with the
 * rounds where the sender itself ran out of CPU left out (issue 35; docs/benchmarks.md, Method). */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { median } from './stats'

/** A round whose sender used more than this share of its core measured the sender, not the server. */
export const generatorBoundShare = 0.9

/** What every table is printed with: the tree, Node, the CPU, and how loaded the machine was. */
export function benchHeader(): string {
  let commit = 'unknown'
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' })
    if (dirty.trim()) commit += ' (with uncommitted changes)'
  } catch {
    // not a checkout
  }
  const model = cpus()[0]?.model ?? 'unknown CPU'
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')
  return `tree ${commit} · Node ${process.version} · ${model} × ${cpus().length} · load average ${load} (1/5/15 min)`
}

/** The sender's CPU over a stretch of wall time: its share of one core (it is one thread's loop). */
export function senderMeter(): { stop(): number } {
  const cpu = process.cpuUsage()
  const wall = performance.now()
  return {
    stop() {
      const used = process.cpuUsage(cpu)
      return (used.user + used.system) / 1000 / (performance.now() - wall)
    },
  }
}

/** The machine's busy share over a stretch, from /proc/stat (all cores): what else was running. */
export function machineMeter(): { stop(): number } {
  const read = () => {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
    const idle = fields[3]! + (fields[4] ?? 0)
    return { idle, total: fields.reduce((a, b) => a + b, 0) }
  }
  const before = read()
  return {
    stop() {
      const after = read()
      const total = after.total - before.total
      return total > 0 ? 1 - (after.idle - before.idle) / total : 0
    },
  }
}

/** "2.31× (min 2.20, max 2.45; 3 paired rounds)", or why there is none. */
export function pairedRatio(ratios: number[], leftOut: number): string {
  if (ratios.length === 0) return `no round counted (${leftOut} generator-bound)`
  const shown = (n: number) => n.toFixed(2)
  const out = leftOut > 0 ? `, ${leftOut} generator-bound left out` : ''
  return `${shown(median(ratios))}× (min ${shown(Math.min(...ratios))}, max ${shown(Math.max(...ratios))}; ${ratios.length} paired rounds${out})`
}

/** Little's law as a check of the measurement: the concurrency the sender saw on average should be
 * the rate times the mean latency; a large gap means the loop was not open (the sender lagged). */
export function littlesLaw(rate: number, meanLatencyMs: number, meanInFlight: number): string {
  const expected = (rate * meanLatencyMs) / 1000
  const gap = expected > 0 ? Math.abs(meanInFlight - expected) / expected : 0
  return `Little's law: rate × mean latency = ${expected.toFixed(2)}, mean in flight ${meanInFlight.toFixed(2)} (${gap <= 0.25 ? 'consistent' : 'INCONSISTENT: the sender lagged'})`
}
