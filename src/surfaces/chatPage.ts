import { Router } from 'express';

/**
 * `GET /chat/{key}`: a page of this server that holds nothing but the chatbot's widget, open. The
 * offline follow-up's link lands here (docs/routing.md "The link"): the link's token rides in the URL
 * fragment (`#parley-continue=...`), which browsers never send to a server, and the widget hands it to
 * the state read, which moves the conversation to this device.
 */
export function chatPageRoutes(appUrl: string): Router {
  const router = Router();
  router.get('/chat/:key', (req, res, next) => {
    const key = req.params.key;
    // A public key is letters, digits, '_' and '-'; anything else gets the usual 404.
    if (!/^[\w-]{1,100}$/.test(key)) return next();
    res.type('html').setHeader('Cache-Control', 'no-cache').send(page(appUrl, key));
  });
  return router;
}

const page = (appUrl: string, key: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>Chat</title>
  <style>body { margin: 0; min-height: 100vh; font: 16px/1.5 system-ui, sans-serif; background: #f8fafc; }</style>
</head>
<body>
  <script src="${appUrl}/widget.js" data-key="${key}" defer></script>
</body>
</html>
`;
