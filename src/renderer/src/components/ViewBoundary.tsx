import { Component } from 'react'
import type { ErrorInfo, ReactNode } from 'react'

/** A view that throws while rendering shows what broke, in place of the view, and the sidebar and
 * the other views keep working: a bug in one panel never blanks the whole console. */
export class ViewBoundary extends Component<{ view: string; children: ReactNode }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null }

  static getDerivedStateFromError(error: Error) {
    return { error }
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(`watchdesk: the ${this.props.view} view failed`, error, info.componentStack)
  }

  override render() {
    if (!this.state.error) return this.props.children
    return (
      <div className="banner banner-bad" role="alert">
        The {this.props.view} view failed to draw ({this.state.error.message}). The rest of the console still
        works; open another view and come back, or reload the page. This is a bug: the browser console has the
        details.
      </div>
    )
  }
}
