/// <reference types="vite/client" />

// Declaration merging with Vite's own ImportMetaEnv needs an interface.
/* eslint-disable @typescript-eslint/consistent-type-definitions */
interface ImportMetaEnv {
  /** Build-time override of the live connection's address (docs/websocket.md). */
  readonly VITE_WS_URL?: string
}

interface ImportMeta {
  readonly env: ImportMetaEnv
}
