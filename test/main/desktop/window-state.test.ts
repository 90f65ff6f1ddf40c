import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  placeWindow,
  readWindowState,
  windowStateFile,
  writeWindowState,
} from '../../../src/main/desktop/window-state'
import { windowDefaults } from '../../../src/main/desktop/window'
import { useTempDir } from '../../support/temp'

const laptop = { x: 0, y: 25, width: 1440, height: 875 }
const external = { x: 1440, y: 0, width: 2560, height: 1415 }

describe('window-state persistence', () => {
  const tempDir = useTempDir()

  it('saves to window-state.json in the data dir and reads the same bounds back', () => {
    const file = windowStateFile(tempDir())
    writeWindowState(file, { x: 1500, y: 40, width: 1600, height: 1000, maximized: true })
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      x: 1500,
      y: 40,
      width: 1600,
      height: 1000,
      maximized: true,
    })
    expect(readWindowState(file)).toEqual({
      state: { x: 1500, y: 40, width: 1600, height: 1000, maximized: true },
      problem: null,
    })
  })

  it('opens at the default size without complaint when no state was saved', () => {
    const read = readWindowState(windowStateFile(tempDir()))
    expect(read).toEqual({ state: null, problem: null })
    expect(placeWindow(read.state, { primary: laptop, all: [laptop] }, windowDefaults)).toEqual({
      x: 80,
      y: 63,
      width: 1280,
      height: 800,
      maximized: false,
    })
  })

  it('falls back to the default with the reason when the file is not JSON or not a window state', () => {
    const dir = tempDir()
    const file = join(dir, 'window-state.json')
    writeFileSync(file, '{"width": 1200,')
    expect(readWindowState(file).state).toBeNull()
    expect(readWindowState(file).problem).toMatch(
      /window-state\.json is not valid JSON .*using the default window size/,
    )
    writeFileSync(file, JSON.stringify({ width: -5, height: 'tall' }))
    expect(readWindowState(file).problem).toMatch(/is not a window state/)
    writeFileSync(file, JSON.stringify({ width: 1200, height: 800, x: 0, y: 0, extra: true }))
    expect(readWindowState(file).state).toBeNull()
  })

  it('refuses to write a state that would not read back', () => {
    expect(() =>
      writeWindowState(windowStateFile(tempDir()), { width: 10.5, height: 800, maximized: false }),
    ).toThrow()
  })
})

describe('window placement on the connected displays', () => {
  it('keeps saved bounds that lie on a connected display', () => {
    const saved = { x: 1600, y: 100, width: 1800, height: 1100, maximized: false }
    expect(placeWindow(saved, { primary: laptop, all: [laptop, external] }, windowDefaults)).toEqual(saved)
  })

  it('centres the window on the primary display when its display was unplugged', () => {
    const saved = { x: 2000, y: 100, width: 1800, height: 1100, maximized: false }
    expect(placeWindow(saved, { primary: laptop, all: [laptop] }, windowDefaults)).toEqual({
      x: 0,
      y: 25,
      width: 1440,
      height: 875,
      maximized: false,
    })
    const small = { x: -3000, y: -2000, width: 1000, height: 700, maximized: true }
    expect(placeWindow(small, { primary: laptop, all: [laptop] }, windowDefaults)).toEqual({
      x: 220,
      y: 113,
      width: 1000,
      height: 700,
      maximized: true,
    })
  })

  it('shrinks a window larger than its display and pulls it fully inside', () => {
    const saved = { x: 1300, y: -50, width: 3000, height: 2000, maximized: false }
    expect(placeWindow(saved, { primary: laptop, all: [laptop, external] }, windowDefaults)).toEqual({
      x: 1440,
      y: 0,
      width: 2560,
      height: 1415,
      maximized: false,
    })
    const hanging = { x: 1000, y: 500, width: 1280, height: 800, maximized: false }
    expect(placeWindow(hanging, { primary: laptop, all: [laptop] }, windowDefaults)).toEqual({
      x: 160,
      y: 100,
      width: 1280,
      height: 800,
      maximized: false,
    })
  })

  it('moves a window whose title bar is above the screen back down', () => {
    const saved = { x: 100, y: -790, width: 1280, height: 800, maximized: false }
    expect(placeWindow(saved, { primary: laptop, all: [laptop] }, windowDefaults)).toMatchObject({
      x: 80,
      y: 63,
    })
  })

  it('centres on the display Electron names primary, wherever it is in the list of displays', () => {
    // screen.getAllDisplays() has no fixed order: the external monitor may come first.
    const first = { primary: laptop, all: [external, laptop] }
    expect(placeWindow(null, first, windowDefaults)).toEqual({
      x: 80,
      y: 63,
      width: 1280,
      height: 800,
      maximized: false,
    })
    expect(placeWindow(null, { primary: external, all: [laptop, external] }, windowDefaults)).toEqual({
      x: 2080,
      y: 308,
      width: 1280,
      height: 800,
      maximized: false,
    })
  })

  it('never goes below the minimum size', () => {
    const saved = { x: 10, y: 40, width: 300, height: 200, maximized: false }
    expect(placeWindow(saved, { primary: laptop, all: [laptop] }, windowDefaults)).toMatchObject({
      width: windowDefaults.minWidth,
      height: windowDefaults.minHeight,
    })
  })
})
