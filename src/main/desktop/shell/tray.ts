import { app, Menu, nativeImage, Tray } from 'electron'
import type { MenuItemConstructorOptions } from 'electron'
import { trayMenu } from '../menus'
import type { TrayMenuActions } from '../menus'
import { trayBitmap } from '../tray-status'
import type { TrayLevel, TrayState } from '../tray-status'

/** The tray icon: colour from the worst chain status, tooltip and menu from TrayState. */
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
  return {
    show(state) {
      tray.setImage(icon(state.level))
      tray.setToolTip(state.tooltip)
      if (process.platform === 'darwin')
        tray.setTitle(state.unseenAlerts > 0 ? String(state.unseenAlerts) : '')
      app.setBadgeCount(state.unseenAlerts)
      const summary = state.tooltip.split('\n')[1] ?? ''
      tray.setContextMenu(
        Menu.buildFromTemplate(
          trayMenu({ summary, unseenAlerts: state.unseenAlerts, actions }) as MenuItemConstructorOptions[],
        ),
      )
    },
    destroy: () => tray.destroy(),
  }
}
