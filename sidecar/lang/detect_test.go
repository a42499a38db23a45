package lang

import (
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		text string
		want Lang
	}{
		// Short queries, three to six words.
		{"how does the engine work", English},
		{"what is a sourdough starter", English},
		{"history of the bicycle", English},
		{"come funziona il motore", Italian},
		{"storia della bicicletta", Italian},
		{"perché il cielo è blu", Italian},
		{"l'origine dell'universo", Italian},
		{"cómo funciona el motor", Spanish},
		{"¿qué es la fotosíntesis?", Spanish},
		{"historia de la bicicleta", Spanish},
		{"el año pasado", Spanish},
		{"jak funguje motor auta", Czech},
		{"historie jízdního kola", Czech},
		{"proč je obloha modrá", Czech},
		{"co je to řeka", Czech},
		{"wie funktioniert der Motor", German},
		{"qu'est-ce que la photosynthèse", French},
		// Long texts.
		{"The river rises in the mountains and flows to the sea. Along its banks there are several towns, and most of them were built in the Middle Ages when the river was the main road for trade.", English},
		{"Il fiume nasce sulle montagne e scorre fino al mare. Lungo le sue rive ci sono diverse città, e la maggior parte di esse fu costruita nel Medioevo, quando il fiume era la via principale per il commercio.", Italian},
		{"El río nace en las montañas y fluye hasta el mar. A lo largo de sus orillas hay varias ciudades, y la mayoría de ellas se construyeron en la Edad Media, cuando el río era la vía principal del comercio.", Spanish},
		{"Řeka pramení v horách a teče až do moře. Podél jejích břehů leží několik měst a většina z nich byla postavena ve středověku, kdy byla řeka hlavní cestou obchodu.", Czech},
		{"Der Fluss entspringt in den Bergen und fließt bis zum Meer. An seinen Ufern liegen mehrere Städte, die meisten wurden im Mittelalter gebaut.", German},
		{"La rivière prend sa source dans les montagnes et coule jusqu'à la mer. Le long de ses rives il y a plusieurs villes, construites pour la plupart au Moyen Âge.", French},
		// No evidence: the caller decides.
		{"", Unknown},
		{"2024", Unknown},
		{"Ariosto", Unknown},
		{"queso", Spanish},
		{"Ariosto 1516", Unknown},
		{"formaggio stagionato", Italian},
		{"queso curado", Spanish},
		{"tvrdý sýr", Czech},
		{"aged cheese", English},
		{"a", Unknown},
		// Languages without word lists: named, not filed under one that
		// has them.
		{"O rio nasce nas montanhas e corre até o mar. Nas suas margens há várias cidades, e a maioria delas foi construída na Idade Média.", Portuguese},
		{"De rivier ontspringt in de bergen en stroomt naar de zee. Langs de oevers liggen verschillende steden, die meestal in de middeleeuwen zijn gebouwd.", Dutch},
		{"Floden rinner upp i bergen och flyter ut i havet. Längs dess stränder finns flera städer, och de flesta byggdes under medeltiden.", Swedish},
		{"Joki saa alkunsa vuorilta ja virtaa mereen. Sen rannoilla on useita kaupunkeja, ja useimmat niistä rakennettiin keskiajalla.", Finnish},
		{"A folyó a hegyekben ered és a tengerbe folyik. Partjai mentén több város található, és a legtöbbjük a középkorban épült.", Hungarian},
		{"Râul izvorăște din munți și curge până la mare. De-a lungul malurilor sale se află mai multe orașe, construite în mare parte în Evul Mediu.", Romanian},
		{"Nehir dağlarda doğar ve denize akar. Kıyıları boyunca birkaç şehir vardır ve bunların çoğu Orta Çağ'da inşa edilmiştir.", Turkish},
		{"Rzeka wypływa w górach i płynie aż do morza. Wzdłuż jej brzegów leży kilka miast, a większość z nich została zbudowana w średniowieczu.", Polish},
		{"Rieka pramení v horách a tečie až do mora. Pozdĺž jej brehov leží niekoľko miest a väčšina z nich bola postavená v stredoveku.", Slovak},
		{"Sông bắt nguồn từ núi và chảy ra biển. Dọc hai bờ sông có nhiều thành phố được xây dựng từ thời trung cổ.", Vietnamese},
		// Scripts.
		{"Река берёт начало в горах и течёт к морю.", Russian},
		{"Річка бере початок у горах і тече до моря.", Ukrainian},
		{"Ο ποταμός πηγάζει από τα βουνά και ρέει προς τη θάλασσα.", Greek},
		{"ينبع النهر من الجبال ويجري إلى البحر.", Arabic},
		{"رودخانه از کوه\u200cها سرچشمه می\u200cگیرد و به دریا می\u200cریزد.", Persian},
		{"הנהר נובע בהרים וזורם אל הים.", Hebrew},
		{"แม่น้ำไหลจากภูเขาลงสู่ทะเล", Thai},
		{"नदी पहाड़ों से निकलती है और समुद्र में गिरती है।", Hindi},
		{"河流发源于山区，流入大海。", Chinese},
		{"川は山から海へ流れます。", Japanese},
		{"강은 산에서 시작되어 바다로 흐릅니다.", Korean},
		{"Obsidian の同期 Sync 設定", Japanese},
		// Evidence split between two languages: no guess.
		{"de la", Unknown},
	}
	for _, tt := range tests {
		got, conf := Detection(tt.text)
		if got != tt.want {
			t.Errorf("Detect(%q) = %q (%.2f), want %q", tt.text, got, conf, tt.want)
		}
		if got == Unknown && conf != 0 {
			t.Errorf("Detect(%q): unknown with confidence %.2f", tt.text, conf)
		}
		if got != Unknown && (conf <= 0 || conf > 1) {
			t.Errorf("Detect(%q): confidence %.2f out of (0, 1]", tt.text, conf)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		code string
		want Lang
	}{
		{"it", Italian}, {"IT", Italian}, {"it-IT", Italian}, {"es_MX", Spanish},
		{"cs", Czech}, {"cze", Czech}, {"en-GB", English}, {"", Unknown}, {"xx", Unknown},
		{"pt-BR", Portuguese}, {"nb", Norwegian}, {"zh-Hans", Chinese}, {"ja", Japanese}, {"Deutsch", German},
	}
	for _, tt := range tests {
		if got := Parse(tt.code); got != tt.want {
			t.Errorf("Parse(%q) = %q, want %q", tt.code, got, tt.want)
		}
	}
}

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"città", "citta"},
		{"žluťoučký kůň", "zlutoucky kun"},
		{"año", "ano"},
		{"Über", "Uber"},
		{"plain", "plain"},
		{"straße", "straße"},
	}
	for _, tt := range tests {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWords(t *testing.T) {
	got := Words("Dell'acqua, l'ÉTÉ: 3 kůň-a")
	want := []string{"dell", "acqua", "l", "été", "3", "kůň", "a"}
	if len(got) != len(want) {
		t.Fatalf("Words = %q, want %q", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("Words = %q, want %q", got, want)
		}
	}
}

func TestIsStop(t *testing.T) {
	tests := []struct {
		l    Lang
		w    string
		want bool
	}{
		{English, "the", true}, {Italian, "della", true}, {Spanish, "cuando", true},
		{Czech, "jsou", true}, {English, "engine", false}, {Unknown, "the", false},
	}
	for _, tt := range tests {
		if got := IsStop(tt.l, tt.w); got != tt.want {
			t.Errorf("IsStop(%q, %q) = %v, want %v", tt.l, tt.w, got, tt.want)
		}
	}
}

// BenchmarkDetectLong measures detection over a note-sized text (about
// 1,800 words), as indexing runs it for notes without a `lang` field.
func BenchmarkDetectLong(b *testing.B) {
	text := strings.Repeat("Il fiume nasce sulle montagne e scorre fino al mare. Lungo le sue rive ci sono diverse città, e la maggior parte di esse fu costruita nel Medioevo. ", 64)
	for b.Loop() {
		Detect(text)
	}
}
