// Types of scripts/build.mjs, for the TypeScript that imports it (bench/cli.ts).
export declare const ROOT: string
export declare const DIST: string
export declare function isFresh(): boolean
export declare function build(): Promise<void>
export declare function ensureBuilt(say?: (line: string) => void): Promise<void>
