/** An agentCard as a team writes it in its servers file, every field the agent reads: the file's, the card's and the served card's tests share it. */
export const CARD_DA_EQUIPE = {
  name: 'Agente da Equipe',
  description: 'Ferramentas da equipe.',
  version: '2.0.0',
  provider: { organization: 'Equipe', url: 'https://equipe.exemplo.com' },
  documentationUrl: 'https://equipe.exemplo.com/agente',
  iconUrl: 'https://equipe.exemplo.com/icone.png',
};
