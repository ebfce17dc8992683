// Scaffolds `apps/<service>/src/handlers/<command>/`: the handler (pure of transport: it gets the
// command id and data, answers once through the service's kept-reply store) and its spec. The JetStream consumer stays thin.
const { generateFiles, names } = require('@nx/devkit');
const path = require('node:path');

module.exports = async function commandHandlerGenerator(tree, options) {
  const kebab = names(options.command).fileName;
  const target = path.join('apps', options.service, 'src/handlers', kebab);
  if (!tree.exists(path.join('apps', options.service))) throw new Error(`apps/${options.service} does not exist`);
  if (tree.exists(target)) throw new Error(`${target} exists already`);
  generateFiles(tree, path.join(__dirname, 'files'), target, { tmpl: '', kebab, command: options.command, reply: options.reply ?? `${options.command}Done`, className: names(options.command).className });
};
