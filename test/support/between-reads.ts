import type { Database } from 'better-sqlite3'

/** A connection on which the `nth` run (default the first) of statements whose SQL `matches`
 * first lets `between` run: another connection's commit landing between two reads of one answer,
 * the interleaving a loaded machine produces now and then, made to happen every time. */
export function commitBetweenReads(
  db: Database,
  matches: (sql: string) => boolean,
  between: () => void,
  nth = 1,
): Database {
  let runs = 0
  const fireOnce = () => {
    if (++runs === nth) between()
  }
  return new Proxy(db, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown
      if (key !== 'prepare') return typeof value === 'function' ? value.bind(target) : value
      return (sql: string) => {
        const statement = target.prepare(sql)
        if (!matches(sql)) return statement
        const watched: typeof statement = new Proxy(statement, {
          get(s, name) {
            const member = Reflect.get(s, name, s) as unknown
            if (typeof member !== 'function') return member
            const reads = name === 'get' || name === 'all' || name === 'iterate'
            return (...args: unknown[]) => {
              if (reads) fireOnce()
              const result = (member as (...a: unknown[]) => unknown).apply(s, args)
              // pluck(), raw(), expand() return the statement: keep watching it.
              return result === s ? watched : result
            }
          },
        })
        return watched
      }
    },
  })
}
