/** Public API of this package. */
export {};
