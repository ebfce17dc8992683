export { createDataSource, isDatabaseUnavailable, openDatabase, type DatabaseOptions } from './data-source.js';
