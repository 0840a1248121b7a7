// The extension's code runs with the chrome.* APIs of Chromium's extension platform.
/// <reference types="chrome" />
