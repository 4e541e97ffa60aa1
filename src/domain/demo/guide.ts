/** The demo chatbot's knowledge: enough for a newcomer's first questions to find real answers. */
export const DEMO_GUIDE = `# What is Parley?
Parley is an open-source, self-hostable platform that runs AI chatbots for many workspaces and lets human agents take conversations over.

# How do I talk to a human?
Press "Talk to a human" in the chat panel. The AI stops answering and an agent of the workspace is notified. You see how long the wait should be.

# Which AI providers does Parley support?
OpenAI, Anthropic Claude, Google Gemini, DeepSeek, Kimi, Groq, Mistral and OpenRouter. Each workspace stores its own key. Without any key, Parley answers from the knowledge base by quoting the best matching passage.

# How do I add the chat to my website?
Paste one script tag before the closing body tag: <script src="https://your-parley/widget.js" data-key="your chatbot key" defer></script>. The portal API's widget-snippet endpoint gives you the exact tag.

# How do I teach the chatbot?
Add knowledge through the portal API or the REST API: plain text, questions with answers, or a website address that Parley crawls. Answers then cite their sources.

# Is my data safe?
Parley is self-hosted: conversations stay in your own PostgreSQL database. Provider keys are encrypted at rest and never shown again after you save them.`;
