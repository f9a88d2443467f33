// picomatch ships no types (Vite and Vitest, both pinned here, depend on picomatch 4); the part used here.
declare module 'picomatch/posix.js' {
  interface PicomatchOptions {
    /** Let `*` and `**` match names that start with a dot. */
    readonly dot?: boolean
  }
  /** Compiles globs (any one matching) into a test for `/`-separated paths. */
  function picomatch(glob: string | readonly string[], options?: PicomatchOptions): (path: string) => boolean
  export default picomatch
}
