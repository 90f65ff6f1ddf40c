// electron-vite's `?asset` imports: the file is copied next to the bundle and the import is its path.
declare module '*?asset' {
  const path: string
  export default path
}
