export { createDataSource, openDatabase, type DatabaseOptions } from './data-source.js';
