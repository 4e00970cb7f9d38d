// The side panel's app. The results view arrives with the extension issue; this entry is bundled now so the
// build and packaging stay complete.
const root = document.getElementById('root');
if (root) root.textContent = 'Corpus Lens: place the cursor in a sentence to see similar sentences.';
