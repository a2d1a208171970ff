
Ö/device:GPU:1âStream #19(Kernel)ÕÍ7"8¸ÌØ’b€ü¤"«"	8"8"8"8"8" "8¸ «˜b€ç¨"¬"	8"8"8"8"8" "8¸Ì÷Ûb€”‹"¯"	8"8"8"8"8" "9¸ìªÿb€ƒÆ"²"	8"8"8"8"8" "9¸ïğdèû£"³"	8
"8"8"8"8" "9˜øïğä€’ô"Î"	8"8"8"8"8" "9À€§¨æÀÍï"ñ"	8"8"8"8"8" "9€ëçïæ€Ø""	8"8"8"8"8" ":€Ç‡“çÀô»"¦"	8"8"8"8"8" ":À»Ã è¨³¾¢"µ"	8
"8"8"8"8" "9¨ËúÈÈÀÿ"”"	8"8"8"8"8" "9¨’éÔÈÀ˜×"º"	8"8"8"8"8" "9¨œìÁÉèÁ¨"â"	8"8"8"8"8" ":˜Ú€ŠË€ "ö"	8"8"8"8"8" ":˜Û ˜Ìè“„¤"Š"	8
"8"8"8"8" "9Ğƒ³€ÖÀ…"Ğ"	8"8"8"8"8" "9œŠ„ÖÀÄõ"Ù"	8"8"8"8"8" "9Âë—Ö€ªÚ"ä"	8"8"8"8"8" ":ĞĞÂ§×Àƒ·"ş"	8"8"8"8"8" ":Ôù´Øè¯Ô¢"š	"	8
"8"8"8"8" "9 Ñ½ĞÿÀÃ¢"ï
"	8"8"8"8"8" "9à‰¢ÚÿÀ‰Ü"ö
"	8"8"8"8"8" "9àİõ²€€ç™""	8"8"8"8"8" ": ÿ™Æ€€¦ê"¬"	8"8"8"8"8" ":Èì¿‚€¹õ£"Ç"	8
"8"8"8"8" "‡‚ıCijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASM_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_CLR1_DTLA0_DTLB0_DTVA1_DTVB0_DVO0_ETSP_EPS1_ELFLR0_EMLL0_FSSC10_FL0_GLVWA2_GLVWB4_GRCGA1_GRCGB1_GRPM1_GRVWn1_GSU1_GSUASB_GLS0_ISA942_IU1_K1_KLA_LBSPPA0_LBSPPB1024_LPA0_LPB4_LDL1_LRVW4_LWPMn1_LDW0_FMA_MIAV0_MDA2_MO40_MMFSC_MKFGSU256_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA2_NLCB2_ONLL1_OPLV0_PK0_PAP0_PGR2_PLR5_PKA0_SIA3_SLW1_SS1_SU8_SUM0_SUS256_SCIUI1_SPO1_SRVW0_SSO0_SVW2_SNLL0_TSGRA0_TSGRB0_TT4_128_TLDS0_UMLDSA0_UMLDSB0_U64SL1_USFGROn1_VAW1_VSn1_VW2_VWB4_VFLRP1_WSGRA0_WSGRB0_WS64_WG64_4_1_WGM1.kd" loop_transpose_fusion.kd"Im3d2Col.kd"!input_transpose_fusion.kd"#input_transpose_fusion_1.kd*jit_forward_3d_conv*compute_cap_minor* input_transpose_fusion.1*
hlo_op*HD@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*	x*cudnn-conv.1*L
H
D grid:69840,1,1 block:256,1,1 private_mem:0 group_mem:8192 occ_pct:0*device_vendor*
core_count*
hlo_module*memory_size*
XlaModule:*name*loop_transpose_fusion*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*memory_bandwidth*compute_cap_major*
clock_rate*	tf_op*HD@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*		kernel_details*correlation_id*
kernel*
program_id*input_transpose_fusion*1-)jit(forward_3d_conv)/conv_general_dilated*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:02*AMD2  –€2 °2	€€ ›¾M2	€€€øÿ2 	2 