import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
// @ts-expect-error: js-yaml ships no types (and @types/js-yaml is not a dependency).
import { load } from 'js-yaml'
import { afterEach, describe, expect, it } from 'vitest'
import { useTempDir } from '../support/temp'
// @ts-expect-error: a plain ES module run by the workflow with node, without types.
import { attempts, launchAndCheck, running } from '../../build/ci/launch-packaged.mjs'

/** .github/workflows/desktop.yml starts the packaged app on hosted runners (Electron's binary cannot
 * be downloaded here). What can be checked without the binary: the workflow parses and has every
 * step, and its launch script's attempts, checks and quit check run against a scripted stand-in
 * for Playwright's Electron application, backed by a real child process. */

const root = join(import.meta.dirname, '..', '..')

interface Step {
  name?: string
  uses?: string
  run?: string
  if?: string
}

describe('the packaged-app workflow', () => {
  const workflow = load(readFileSync(join(root, '.github/workflows/desktop.yml'), 'utf8')) as {
    jobs: Record<string, { 'runs-on': string; strategy: { matrix: { os: string[] } }; steps: Step[] }>
  }
  const job = Object.values(workflow.jobs)[0]!
  const text = (s: Step) => `${s.uses ?? ''} ${s.run ?? ''}`

  it('runs on hosted Linux, macOS and Windows runners', () => {
    expect(job['runs-on']).toBe('${{ matrix.os }}')
    const os = job.strategy.matrix.os.join(' ')
    for (const runner of ['ubuntu', 'macos', 'windows']) expect(os).toContain(runner)
  })

  it.each([
    ['check out', /actions\/checkout@/],
    ['Node.js 22', /actions\/setup-node@/],
    ['install with Electron', /npm ci/],
    ['build', /npm run build/],
    ['package with electron-builder dir', /electron-builder --dir/],
    ['check the asar', /@electron\/asar list/],
    ['chrome-sandbox 4755 on Linux', /chmod 4755 "\$sandbox"/],
    ['launch under xvfb-run -a on Linux', /xvfb-run -a node build\/ci\/launch-packaged\.mjs/],
    ['launch elsewhere', /^ node build\/ci\/launch-packaged\.mjs/],
    ['keep the screenshot', /actions\/upload-artifact@/],
  ])('has the step: %s', (_, pattern) => {
    expect(job.steps.some((s) => pattern.test(text(s)))).toBe(true)
  })

  it('launches with the script that is in the repository, in the order build → package → launch', () => {
    expect(existsSync(join(root, 'build/ci/launch-packaged.mjs'))).toBe(true)
    const at = (pattern: RegExp) => job.steps.findIndex((s) => pattern.test(text(s)))
    expect(at(/npm run build/)).toBeLessThan(at(/electron-builder --dir/))
    expect(at(/electron-builder --dir/)).toBeLessThan(at(/launch-packaged/))
    expect(job.steps.find((s) => /upload-artifact/.test(text(s)))!.if).toBe('always()')
  })
})

describe('the launch script (build/ci/launch-packaged.mjs) against a stand-in application', () => {
  const tempDir = useTempDir('watchdesk-ci-launch-')
  const children: ChildProcess[] = []
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL')
  })

  /** Playwright's ElectronApplication as far as the script uses it, over a real process. */
  function standIn({ title = 'watchdesk', quits = true } = {}) {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
    children.push(child)
    const env: NodeJS.ProcessEnv[] = []
    const window = {
      waitForLoadState: async () => {},
      title: async () => title,
      getByRole: (role: string, { name }: { name: string }) => ({
        waitFor: async () => {
          if (role !== 'heading' || name !== 'Overview') throw new Error('no such element')
        },
      }),
      screenshot: async () => Buffer.from('png'),
    }
    return {
      env,
      app: {
        process: () => child,
        firstWindow: async () => window,
        close: async () => {
          if (quits) await new Promise((resolve) => child.once('exit', resolve).kill('SIGTERM'))
        },
      },
    }
  }

  it('retries a failed launch, checks title and Overview, keeps a screenshot, and sees the process gone', async () => {
    const screenshot = join(tempDir(), 'window.png')
    const { app } = standIn()
    const lines: string[] = []
    const launches: NodeJS.ProcessEnv[] = []
    await launchAndCheck({
      launch: async ({ env }: { env: NodeJS.ProcessEnv }) => {
        launches.push(env)
        if (launches.length === 1) throw new Error('Timeout 60000ms exceeded')
        return app
      },
      executablePath: '/stand-in/watchdesk',
      screenshot,
      log: (line: string) => lines.push(line),
    })
    expect(launches).toHaveLength(2)
    // An isolated data dir, a new one for this run.
    expect(launches[1]!.WATCHDESK_DATA_DIR).toMatch(/watchdesk-ci-/)
    expect(launches[1]!.WATCHDESK_DATA_DIR).not.toBe(process.env.WATCHDESK_DATA_DIR)
    expect(lines[0]).toContain(`launch attempt 1 of ${attempts} failed`)
    expect(readFileSync(screenshot, 'utf8')).toBe('png')
    expect(lines.at(-1)).toBe('quit: no process left')
    expect(running(app.process().pid)).toBe(false)
  })

  it('fails after the last attempt, naming the cause', async () => {
    await expect(
      launchAndCheck({
        launch: async () => {
          throw new Error('Process failed to launch!')
        },
        executablePath: '/stand-in/watchdesk',
        screenshot: join(tempDir(), 'w.png'),
        log: () => {},
      }),
    ).rejects.toThrow(`did not start in ${attempts} attempts: Process failed to launch!`)
  })

  it('fails on a window not titled watchdesk, and when quit leaves the process running', async () => {
    const wrong = standIn({ title: 'Electron' })
    await expect(
      launchAndCheck({
        launch: async () => wrong.app,
        executablePath: '/x',
        screenshot: join(tempDir(), 'w.png'),
        log: () => {},
      }),
    ).rejects.toThrow('titled "Electron"')
    const stays = standIn({ quits: false })
    await expect(
      launchAndCheck({
        launch: async () => stays.app,
        executablePath: '/x',
        screenshot: join(tempDir(), 'w.png'),
        log: () => {},
      }),
    ).rejects.toThrow('still runs after quit')
  }, 60_000)
})
