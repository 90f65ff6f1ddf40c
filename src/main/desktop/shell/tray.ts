import { app, Menu, nativeImage, Tray } from 'electron'
import type { MenuItemConstructorOptions } from 'electron'
import { trayMenu } from '../menus'
import type { TrayMenuActions } from '../menus'
import { trayBitmap, trayChanges, trayLook } from '../tray-status'
import type { TrayLevel, TrayLook, TrayState } from '../tray-status'

/** The tray icon: colour from the worst chain status, tooltip and menu from TrayState. Only what
 * changed is handed to Electron (a poll every few seconds would otherwise rebuild the menu). */
export function createTray(actions: TrayMenuActions): { show(state: TrayState): void; destroy(): void } {
  const icons = new Map<TrayLevel, Electron.NativeImage>()
  const icon = (level: TrayLevel) => {
    let image = icons.get(level)
    if (!image) {
      image = nativeImage.createFromBitmap(trayBitmap(level, 16), { width: 16, height: 16 })
      image.addRepresentation({ scaleFactor: 2, width: 32, height: 32, buffer: trayBitmap(level, 32) })
      icons.set(level, image)
    }
    return image
  }
  const tray = new Tray(icon('idle'))
  tray.on('click', actions.open)
  let shown: TrayLook | null = null
  return {
    show(state) {
      if (tray.isDestroyed()) return
      const look = trayLook(state)
      const changed = trayChanges(shown, look)
      shown = look
      if (changed.includes('level')) tray.setImage(icon(look.level))
      if (changed.includes('tooltip')) tray.setToolTip(look.tooltip)
      if (changed.includes('badge')) {
        if (process.platform === 'darwin') tray.setTitle(look.badge > 0 ? String(look.badge) : '')
        app.setBadgeCount(look.badge)
      }
      if (changed.includes('menu')) {
        tray.setContextMenu(
          Menu.buildFromTemplate(
            trayMenu({
              summary: state.summary,
              unseenAlerts: state.unseenAlerts,
              actions,
            }) as MenuItemConstructorOptions[],
          ),
        )
      }
    },
    destroy: () => {
      if (!tray.isDestroyed()) tray.destroy()
    },
  }
}
