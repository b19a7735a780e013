package boundary

import "regexp"

// The Simplified Chinese half of ClassifyPrompt's rules (intent.go), in
// the same order: explicit replacement, dismissal (with new work it is a
// replacement unless what it dismisses is residue), narrowing.
var (
	zhExplicitReplacement = regexp.MustCompile(`新任务|换(?:一个|个)任务|换个活|任务(?:变了|改了|换了)|计划(?:变了|有变)|改变计划|不做(?:这个|那个)?了|(?:先)?别(?:再)?做(?:这个|那个)?了|不用(?:再)?做(?:这个|那个)?了|重新开始|从头开始|转而|改(?:成|为)(?:去)?(?:做|写|实现|处理)|换成(?:做|写)|把.{1,20}(?:放一放|先放下|放到一边)`)
	zhDismissal           = regexp.MustCompile(`(?:先)?(?:别管|不用管|不要管|不必管|忽略|无视|不用担心|别担心|不必理会|不用理会|忘掉|跳过|先不管|不用在意|别在意)(?:掉)?([^，。,；;！!？?\n]{1,40})`)
	zhInstead             = regexp.MustCompile(`改(?:成|为|去)|换成|转而|取而代之|而是`)
	zhWork                = regexp.MustCompile(`(?:^|[，。,；;])\s*(?:现在|请|先|你)?(?:帮我|给我|去|来)?(?:写|做|实现|修复|修|添加|加|重构|整理|准备|起草|翻译|调研|研究|设计|部署|生成|更新)`)
	zhNarrowing           = regexp.MustCompile(`只(?:需要?|要|改|做|看|动|修|针对|在|处理|用|保留)|仅(?:仅)?|重点(?:放在|是)?|必须|务必|确保|保证|一定要|不要(?:改|动|修改|删|碰|引入|用)|别(?:改|动|删|碰|用)|保持|限定|限制在|不超过|最多|用.{1,20}(?:代替|替代|而不是)`)
)
