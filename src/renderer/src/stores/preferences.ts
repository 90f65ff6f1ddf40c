import { create } from 'zustand'

/** This browser's preferences, kept in localStorage (nothing here is a secret or a setting of the
 * back end). */
interface Preferences {
  /** 1–5 open the views when no field has focus; off for screen-reader users and those who type
   * digits into the page by habit. */
  digitShortcuts: boolean
  setDigitShortcuts(on: boolean): void
}

const digitKey = 'watchdesk.digitShortcuts'

function readFlag(key: string, fallback: boolean): boolean {
  try {
    const value = globalThis.localStorage?.getItem(key)
    return value === null || value === undefined ? fallback : value === 'on'
  } catch {
    return fallback
  }
}

function writeFlag(key: string, on: boolean): void {
  try {
    globalThis.localStorage?.setItem(key, on ? 'on' : 'off')
  } catch {
    // storage refused (private mode): the choice lasts for this page only
  }
}

export const usePreferences = create<Preferences>((set) => ({
  digitShortcuts: readFlag(digitKey, true),
  setDigitShortcuts(on) {
    writeFlag(digitKey, on)
    set({ digitShortcuts: on })
  },
}))
