/** class-transformer keeps its @Type() metadata here and ships the module without a declaration beside it. */
declare module 'class-transformer/cjs/storage.js' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
