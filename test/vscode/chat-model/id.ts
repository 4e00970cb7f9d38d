/** The id of the scripted chat model extension (publisher.name of test/vscode/chat-model/package.json). */
export const CHAT_MODEL_EXTENSION = 'corpus-lens-tests.corpus-lens-test-chat-model';
