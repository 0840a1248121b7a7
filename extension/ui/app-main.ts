// The popup's and the side panel's page: the shell, whose views load when opened.
import './kassa-extension-app.ts';
