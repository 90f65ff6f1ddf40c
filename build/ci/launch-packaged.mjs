// Starts the PACKAGED desktop app (electron-builder's `dir` output) the way an operator would and
// checks it: the window titled watchdesk, the Overview rendered, a screenshot kept, quit leaving no
// process. Run by .github/workflows/desktop.yml on Linux (under xvfb-run -a), macOS and Windows:
//   node build/ci/launch-packaged.mjs <executable> <screenshot.png>
// Isolated: a fresh data dir (WATCHDESK_DATA_DIR), so the Overview is the first-run one (the
// desktop app has no demo mode: `serve --demo` is the CLI's). A few launch attempts, since a first
// start on a cold hosted runner can miss Playwright's deadline.
// test/repo/desktop-workflow.test.ts runs `launchAndCheck` against a scripted stand-in launcher.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

export const attempts = 3

/** Whether a process id still runs (signal 0 checks without sending anything). */
export function running(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}

/** `launch({ executablePath, env })` resolves to an Electron application as Playwright's
 * `_electron.launch` gives it: firstWindow(), process(), close(). */
export async function launchAndCheck({ launch, executablePath, screenshot, log = console.log }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchdesk-ci-'))
  const env = { ...process.env, WATCHDESK_DATA_DIR: dataDir }
  let app
  let lastError
  for (let attempt = 1; attempt <= attempts && !app; attempt++) {
    try {
      app = await launch({ executablePath, env, timeout: 60_000 })
    } catch (error) {
      lastError = error
      log(`launch attempt ${attempt} of ${attempts} failed: ${error.message}`)
    }
  }
  if (!app) throw new Error(`the packaged app did not start in ${attempts} attempts: ${lastError?.message}`)
  const pid = app.process().pid
  try {
    const window = await app.firstWindow()
    await window.waitForLoadState('domcontentloaded')
    const title = await window.title()
    if (title !== 'watchdesk') throw new Error(`the window is titled "${title}", not "watchdesk"`)
    await window.getByRole('heading', { name: 'Overview' }).waitFor({ timeout: 60_000 })
    writeFileSync(screenshot, await window.screenshot())
    log(`window "${title}" shows the Overview; screenshot at ${screenshot}`)
  } finally {
    await app.close()
  }
  // Quit leaves nothing behind: the main process (and with it the back end) is gone.
  for (let i = 0; i < 200 && running(pid); i++) await new Promise((r) => setTimeout(r, 50))
  if (running(pid)) throw new Error(`process ${pid} still runs after quit`)
  rmSync(dataDir, { recursive: true, force: true })
  log('quit: no process left')
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [executablePath, screenshot = 'watchdesk-window.png'] = process.argv.slice(2)
  if (!executablePath) {
    console.error('usage: node build/ci/launch-packaged.mjs <packaged executable> [screenshot.png]')
    process.exit(2)
  }
  const { _electron } = await import('playwright-core')
  await launchAndCheck({ launch: (options) => _electron.launch(options), executablePath, screenshot }).catch(
    (error) => {
      console.error(error.message)
      process.exit(1)
    },
  )
}
