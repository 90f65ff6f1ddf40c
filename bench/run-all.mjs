// `npm run bench`: runs every `bench:*` script of package.json in turn (the build is done once, by
// `npm run bench` itself) and stops at the first that fails.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const benches = Object.keys(scripts).filter((name) => name.startsWith('bench:'))
for (const name of benches) {
  console.log(`\n== npm run ${name}`)
  const run = spawnSync('npm', ['run', '--silent', name], { stdio: 'inherit' })
  if (run.status !== 0) {
    console.error(`${name} failed (exit ${run.status})`)
    process.exit(run.status ?? 1)
  }
}
