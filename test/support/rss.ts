import { readFileSync } from 'node:fs'

/** Resident memory of a process in MB, read from /proc; null once it is gone. */
export function rssMb(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]
    return kb === undefined ? null : Number(kb) / 1024
  } catch {
    return null
  }
}

/** The highest RSS of `pid` seen from now on, sampled every `everyMs` until `stop()`. */
export function sampleRss(pid: number, everyMs = 50): { start: number; peak(): number; stop(): void } {
  const start = rssMb(pid) ?? Number.NaN
  let peak = start
  const sample = () => {
    const now = rssMb(pid)
    if (now !== null && now > peak) peak = now
  }
  const timer = setInterval(sample, everyMs)
  return {
    start,
    peak: () => (sample(), peak),
    stop: () => clearInterval(timer),
  }
}
