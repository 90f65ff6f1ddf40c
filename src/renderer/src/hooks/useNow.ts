import { useEffect, useState } from 'react'

/** The current time, re-rendering every `everyMs` only while `ticking` (a countdown, an age). */
export function useNow(ticking: boolean, everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!ticking) return
    const first = setTimeout(() => setNow(Date.now()), 0) // at once, not a tick late
    const timer = setInterval(() => setNow(Date.now()), everyMs)
    return () => {
      clearTimeout(first)
      clearInterval(timer)
    }
  }, [ticking, everyMs])
  return now
}
